// Where is the fault end to end (issue 34): block-in, block-out, drop, flap on a lab of 6 agents in 3 zones; the
// suite is test/e2e/testdata/lab-faults-suite.ts.
import { faultSuite } from "./testdata/lab-faults-suite.ts";

faultSuite(["block-in", "block-out", "drop", "flap"]);
