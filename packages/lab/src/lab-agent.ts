/** How a lab starts (and starts again, after `svc lab fault down NODE agent`) one node's agent. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_ENV, AGENT_NODE_FLAGS } from "@svc/core";
import { stringify } from "yaml";
import { type ManagedProcess, startProcess } from "./processes.ts";

/** One agent of a lab. */
export interface AgentStartOptions {
  svcBin: string;
  dir: string;
  netns: boolean;
  node: { name: string; namespace: string; address: string; zone: string };
  /** the agent's YAML configuration (written to <dir>/<name>.yaml) */
  config: Record<string, unknown>;
}

/** Writes the agent's config and returns what starts it: as an operator starts an agent (@svc/core agent-start.ts). */
export function agentStart(o: AgentStartOptions): () => ManagedProcess {
  const n = o.node;
  const file = join(o.dir, `${n.name}.yaml`);
  writeFileSync(file, stringify(o.config));
  const env = {
    ...AGENT_ENV,
    SVC_NODE_NAME: n.name,
    SVC_ZONE: n.zone,
    SVC_POD_NAME: `svc-agent-${n.name}`,
    SVC_POD_IP: n.address,
  };
  const args = [...AGENT_NODE_FLAGS, o.svcBin, "agent", "--config", file];
  if (!o.netns) args.push("--lab-advertise", n.address);
  const logFile = join(o.dir, `${n.name}.log`);
  return o.netns
    ? () =>
        startProcess(n.name, "ip", ["netns", "exec", n.namespace, process.execPath, ...args], {
          env,
          logFile,
        })
    : () => startProcess(n.name, process.execPath, args, { env, logFile });
}
