// Fuzzing of the console's write routes, shard 1 of 8 (testing/fuzz-suite.ts says what is checked).
import { fuzzShard } from "../testing/fuzz-suite.ts";

fuzzShard(0);
