import assert from "node:assert/strict";
import { test } from "node:test";
import * as prom from "prom-client";
import { lcg } from "../../../../../test/helpers/seeded-random.ts";
import { CounterFamily } from "./counter.ts";
import { GaugeFamily } from "./gauge.ts";
import { HistogramFamily } from "./histogram.ts";
import { MetricRegistry } from "./registry.ts";

const BUCKETS = [0.0001, 0.001, 0.01, 0.1, 1, 5];
const LABELS = ["source_node", "destination_node", "zone"];

/**
 * The same families on our store and on prom-client (the reference implementation of the format the agent
 * served before it had its own store), driven by the same operations.
 */
function twins() {
  const ours = new MetricRegistry();
  const theirs = new prom.Registry();
  const registers = [theirs];
  const help = 'RTT with "quotes", a \\ backslash\nand a newline.';
  const pairs = {
    hist: [
      ours.register(
        new HistogramFamily({ name: "t_rtt_seconds", help, labelNames: LABELS, buckets: BUCKETS }),
      ),
      new prom.Histogram({ name: "t_rtt_seconds", help, labelNames: LABELS, buckets: BUCKETS, registers }),
    ],
    counter: [
      ours.register(new CounterFamily({ name: "t_results_total", help: "Results.", labelNames: LABELS })),
      new prom.Counter({ name: "t_results_total", help: "Results.", labelNames: LABELS, registers }),
    ],
    gauge: [
      ours.register(new GaugeFamily({ name: "t_loss_ratio", help: "Loss.", labelNames: LABELS })),
      new prom.Gauge({ name: "t_loss_ratio", help: "Loss.", labelNames: LABELS, registers }),
    ],
  } as const;
  const bare = {
    gauge: [
      ours.register(new GaugeFamily({ name: "t_bare", help: "No labels." })),
      new prom.Gauge({ name: "t_bare", help: "No labels.", registers }),
    ],
    hist: [
      ours.register(new HistogramFamily({ name: "t_bare_seconds", help: "No labels.", buckets: BUCKETS })),
      new prom.Histogram({ name: "t_bare_seconds", help: "No labels.", buckets: BUCKETS, registers }),
    ],
  } as const;
  return { ours, theirs, pairs, bare };
}

test("the exposition is byte for byte prom-client's for the same operations", async () => {
  const { ours, theirs, pairs, bare } = twins();
  const rnd = lcg(7);
  const nodes = ["a", "b", 'q"uote', "back\\slash", "new\nline", "ü-zone"];
  const pick = () => nodes[Math.floor(rnd() * nodes.length)] as string;
  for (let i = 0; i < 3000; i++) {
    const labels = { source_node: "self", destination_node: pick(), zone: pick() };
    const r = rnd();
    // values on bucket bounds, between them, above the last and tiny
    const v = [0.0001, 0.001, 0.05, 5, 7.5, 1e-7, rnd() * 2][Math.floor(rnd() * 7)] as number;
    if (r < 0.4) for (const h of pairs.hist) h.observe(labels, v);
    else if (r < 0.6) for (const c of pairs.counter) c.inc(labels, i % 3);
    else if (r < 0.8) {
      const g = rnd() < 0.1 ? -v : v;
      for (const f of pairs.gauge) f.set(labels, g);
    } else if (r < 0.9) for (const h of pairs.hist) h.remove(labels);
    else if (r < 0.95) for (const c of pairs.counter) c.remove(labels);
    else {
      for (const g of bare.gauge) g.set({}, v);
      for (const h of bare.hist) h.observe({}, v);
    }
  }
  const text = await ours.metrics();
  assert.ok(text.length > 10_000, `a real exposition (${text.length} bytes)`);
  assert.equal(text, await theirs.metrics());
});

test("chunks: one family's text comes in pieces of about 64 KiB, together the whole exposition", async () => {
  const r = new MetricRegistry();
  const h = r.register(
    new HistogramFamily({ name: "t_seconds", help: "h", labelNames: ["peer"], buckets: BUCKETS }),
  );
  r.register(new GaugeFamily({ name: "t_after", help: "after" }));
  for (let i = 0; i < 2000; i++) h.observe({ peer: `peer-${i}` }, i / 1000);
  const chunks = [...r.chunks()];
  assert.ok(chunks.length > 10, `${chunks.length} chunks`);
  assert.ok(Math.max(...chunks.map((c) => c.length)) < 64 * 1024 + 2048);
  const text = chunks.join("");
  assert.equal(text, await r.metrics());
  assert.match(text, /\n\n# HELP t_after after\n# TYPE t_after gauge\nt_after 0\n$/);
  assert.equal(text.match(/^t_seconds_count\{/gm)?.length, 2000);
});

test("series handles: kept while in the family, gone from the exposition once removed", async () => {
  const r = new MetricRegistry();
  const c = r.register(new CounterFamily({ name: "t_total", help: "c", labelNames: ["peer"] }));
  const s = c.series({ peer: "x" });
  s.inc();
  s.inc(2);
  assert.equal(c.series({ peer: "x" }), s, "one handle per label set");
  assert.match(await r.metrics(), /^t_total\{peer="x"\} 3$/m);
  assert.equal(c.removeKey(s.key), true);
  assert.equal(c.size, 0);
  assert.doesNotMatch(await r.metrics(), /peer="x"/);
  c.inc({ peer: "x" });
  assert.match(await r.metrics(), /^t_total\{peer="x"\} 1$/m, "a new series starts at zero");
});

test("bad use is refused with the reason: labels, names, values, buckets, duplicates", () => {
  const r = new MetricRegistry();
  const g = r.register(new GaugeFamily({ name: "t_g", help: "g", labelNames: ["a", "b"] }));
  assert.throws(() => g.set({ a: "1" }, 1), /t_g: label b is missing/);
  assert.throws(() => g.set({ a: "1", b: "2", c: "3" }, 1), /t_g: unknown label c/);
  assert.throws(() => g.set({ a: "1", b: "2" }, "1" as unknown as number), /must be a number/);
  assert.throws(() => r.register(new GaugeFamily({ name: "t_g", help: "again" })), /already registered/);
  assert.throws(() => new GaugeFamily({ name: "1bad", help: "" }), /invalid metric name/);
  assert.throws(() => new GaugeFamily({ name: "t_x", help: "", labelNames: ["le"] }), /invalid label name/);
  assert.throws(() => new GaugeFamily({ name: "t_x", help: "", labelNames: ["a", "a"] }), /duplicate label/);
  const c = new CounterFamily({ name: "t_c", help: "c", labelNames: ["a"] });
  assert.throws(() => c.inc({ a: "1" }, -1), /finite number >= 0/);
  const h = new HistogramFamily({ name: "t_h", help: "h", labelNames: ["a"], buckets: [1, 2] });
  assert.throws(() => h.observe({ a: "1" }, Number.NaN), /must be finite/);
  assert.throws(() => new HistogramFamily({ name: "t_h", help: "h", buckets: [2, 1] }), /increasing/);
  assert.deepEqual([g.size, c.size, h.size], [0, 0, 0], "nothing was recorded by the refused calls");
});
