// Entry of the bundled agent (apps/agent/dist/agent.mjs, built by `npm run build`): `svc agent` runs this
// without the TypeScript loader, which keeps the agent's footprint small on every node.
import { agentCommand } from "./cli.ts";

process.exit(await agentCommand(process.argv.slice(2)));
