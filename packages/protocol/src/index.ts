export * from "./address.ts";
export * from "./events.ts";
export * from "./external.ts";
export * from "./grpc.ts";
export * from "./peer.ts";
export * from "./peer-message.ts";
export * from "./tasks.ts";
export * from "./topology.ts";
