// Where is the fault end to end (issue 34): down-agent, down-link, zones, node-loss on a lab of 6 agents in 3 zones; the
// suite is test/e2e/testdata/lab-faults-suite.ts.
import { faultSuite } from "./testdata/lab-faults-suite.ts";

faultSuite(["down-agent", "down-link", "zones", "node-loss"]);
