export * from "./config/types.ts";
