/**
 * The alert poller in virtual time against a scripted alert source: baseline first, only svc_rule_id alerts, pending
 * never fires, firedAt is Prometheus's activeAt, resolved stamped at the poll that noticed it, a failed poll freezes
 * the firing set, the interval is kept, a re-activation between polls is a resolve and a fire.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { VirtualScheduler, waitAdvancing } from "../testing/virtual-scheduler.ts";
import { AlertPoller, type AlertTransition, type PrometheusAlert } from "./poller.ts";

const T0 = Date.UTC(2026, 0, 1);
const SEC = 1000;

function alert(rule: string | undefined, pair: string, state: string, activeAt: number): PrometheusAlert {
  const labels: Record<string, string> = { alertname: "svc_udp_loss", pair };
  if (rule) labels.svc_rule_id = rule;
  return { labels, state, activeAt: new Date(activeAt).toISOString() };
}

function harness() {
  const clock = new VirtualScheduler(T0);
  let answer: PrometheusAlert[] | Error = [];
  const got: AlertTransition[][] = [];
  const polls: number[] = [];
  const poller = new AlertPoller({
    source: async () => {
      polls.push(clock.now());
      if (answer instanceof Error) throw answer;
      return answer;
    },
    sink: { transitions: (b) => void got.push([...b]) },
    intervalMs: 30 * SEC,
    scheduler: clock,
  });
  return {
    clock,
    poller,
    got,
    polls,
    set(a: PrometheusAlert[] | Error) {
      answer = a;
    },
  };
}

test("baseline, fired with activeAt, resolved when noticed, pending and unmanaged alerts ignored", async () => {
  const h = harness();
  const active = T0 - 600 * SEC;
  h.set([alert("r1", "a->b", "firing", active), alert(undefined, "x->y", "firing", active)]);
  // the baseline: an alert already firing at start is not delivered
  assert.deepEqual(await h.poller.poll(T0), []);
  assert.ok(h.poller.hasBaseline());
  // pending never fires; an alert without svc_rule_id never fires
  h.set([
    alert("r1", "a->b", "firing", active),
    alert("r1", "b->c", "pending", T0),
    alert(undefined, "c->d", "firing", T0),
  ]);
  assert.deepEqual(await h.poller.poll(T0 + 30 * SEC), []);
  // b->c fires: firedAt is Prometheus's activation, not the poll's time
  h.set([alert("r1", "a->b", "firing", active), alert("r1", "b->c", "firing", T0 + 5 * SEC)]);
  const fired = await h.poller.poll(T0 + 60 * SEC);
  assert.equal(fired.length, 1);
  assert.equal(fired[0]?.event, "alert.fired");
  assert.equal(fired[0]?.ruleId, "r1");
  assert.equal(fired[0]?.firedAt, new Date(T0 + 5 * SEC).toISOString());
  assert.equal(fired[0]?.labels.pair, "b->c");
  // a->b gone: resolved, stamped at the poll that noticed it, with its original firedAt
  h.set([alert("r1", "b->c", "firing", T0 + 5 * SEC)]);
  const resolved = await h.poller.poll(T0 + 90 * SEC);
  assert.deepEqual(resolved, [
    {
      event: "alert.resolved",
      ruleId: "r1",
      labels: { alertname: "svc_udp_loss", pair: "a->b", svc_rule_id: "r1" },
      firedAt: new Date(active).toISOString(),
      at: new Date(T0 + 90 * SEC).toISOString(),
    },
  ]);
  assert.deepEqual(h.got, [fired, resolved]);
});

test("a failed poll freezes the firing set; a failed first poll is no baseline", async () => {
  const h = harness();
  h.set(new Error("prometheus unreachable"));
  assert.deepEqual(await h.poller.poll(T0), []);
  assert.equal(h.poller.hasBaseline(), false);
  assert.equal(h.poller.error(), "prometheus unreachable");
  h.set([alert("r1", "a->b", "firing", T0 - SEC)]);
  assert.deepEqual(await h.poller.poll(T0 + 30 * SEC), [], "first successful poll: baseline");
  h.set(new Error("down again"));
  assert.deepEqual(
    await h.poller.poll(T0 + 60 * SEC),
    [],
    "nothing resolves while Prometheus cannot be read",
  );
  h.set([alert("r1", "a->b", "firing", T0 - SEC)]);
  assert.deepEqual(await h.poller.poll(T0 + 90 * SEC), [], "still firing: no edge across the gap");
  assert.equal(h.poller.error(), null);
  // re-activated between two polls (resolved and fired again): both edges
  h.set([alert("r1", "a->b", "firing", T0 + 100 * SEC)]);
  const again = await h.poller.poll(T0 + 120 * SEC);
  assert.deepEqual(
    again.map((t) => [t.event, t.firedAt]),
    [
      ["alert.resolved", new Date(T0 - SEC).toISOString()],
      ["alert.fired", new Date(T0 + 100 * SEC).toISOString()],
    ],
  );
});

test("polls at start and every interval in virtual time; stop ends polling", async () => {
  const h = harness();
  h.poller.start();
  h.clock.advance(0);
  await waitAdvancing(h.clock, () => h.polls.length >= 4, "four polls", { stepMs: 10 * SEC });
  assert.deepEqual(
    h.polls.slice(0, 4).map((t) => t - T0),
    [0, 30 * SEC, 60 * SEC, 90 * SEC],
  );
  h.poller.stop();
  const n = h.polls.length;
  h.clock.advance(300 * SEC);
  await new Promise((r) => setImmediate(r));
  assert.equal(h.polls.length, n);
  assert.equal(h.clock.pending(), 0);
});
