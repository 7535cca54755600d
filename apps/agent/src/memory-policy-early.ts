// Imported first by the agent's entry (bin.ts): ES modules are evaluated in import order, so the memory policy
// is in force before the rest of the agent is loaded. Loading it (config schema, gRPC, metrics) is when the young
// generation would otherwise first grow (and with the policy it never shrinks back by itself), and when V8's
// worker threads would first allocate, each in a malloc arena of its own.
import { applyAgentMemoryPolicy } from "./memory-policy.ts";

applyAgentMemoryPolicy();
