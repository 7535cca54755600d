export * from "./grpc.ts";
export * from "./peer.ts";
export * from "./topology.ts";
