import assert from "node:assert/strict";
import { test } from "node:test";
import { flatString } from "./family.ts";

test("flatString copies any string exactly, lone surrogates, quotes and escapes included", () => {
  let built = "";
  for (const v of ["node-1", 'a"b\\c\nd', "\uD800", "zone \u00e9\u{1F600}", ""])
    built += `${built ? "," : ""}x="${v}"`;
  assert.equal(flatString(built), built);
  assert.equal(flatString(""), "");
});
