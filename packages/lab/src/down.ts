import { bridgeIfindex, destroyNetwork, listLabBridges, listLabNamespaces } from "./netns.ts";
import { allStates, isLive, removeState } from "./state.ts";

/** What `svc lab down` (without --all) did. */
export interface StaleLabsReport {
  /** indexes whose network was removed: their state file named a process that is gone, and the bridge is its own */
  removed: number[];
  /** indexes of labs whose process runs: untouched */
  running: number[];
  /** state files of gone processes removed without touching a network (none left, or the index now another's) */
  staleStates: number[];
  /**
   * lab networks no state file here accounts for (a lab still starting, one with another SVC_LAB_STATE_DIR, a
   * test's bridge, a lab killed before it wrote its state): left alone, `svc lab down --all` removes them
   */
  unclaimed: { index: number; bridge: boolean; namespaces: string[] }[];
}

/**
 * Removes what labs whose process is gone left behind, and nothing else. A lab's state file (under STATE_DIR)
 * names its process (pid and start time) and its bridge (ifindex): only when that process is gone and the bridge
 * svcbr<index> is still that very bridge are the bridge and the index's namespaces removed (a lab claims its index
 * by creating the bridge, so while the bridge lives no other lab holds the index). Bridges and namespaces no state
 * file accounts for are reported, never removed: a lab writes its state just after creating its bridge, and labs
 * of another state directory or of tests share the machine's bridge names.
 */
export async function removeStaleLabs(): Promise<StaleLabsReport> {
  const report: StaleLabsReport = { removed: [], running: [], staleStates: [], unclaimed: [] };
  const accounted = new Set<number>();
  for (const s of allStates()) {
    if (isLive(s)) {
      report.running.push(s.index);
      accounted.add(s.index);
      continue;
    }
    if (s.netns && s.bridgeIfindex !== undefined && bridgeIfindex(s.index) === s.bridgeIfindex) {
      await destroyNetwork(s.index, await listLabNamespaces(s.index));
      report.removed.push(s.index);
      accounted.add(s.index);
    } else {
      report.staleStates.push(s.index);
    }
    removeState(s);
  }
  const namespaces = await listLabNamespaces();
  const byIndex = new Map<number, { index: number; bridge: boolean; namespaces: string[] }>();
  const entry = (index: number) => {
    let e = byIndex.get(index);
    if (e === undefined) {
      e = { index, bridge: false, namespaces: [] };
      byIndex.set(index, e);
    }
    return e;
  };
  for (const index of await listLabBridges()) if (!accounted.has(index)) entry(index).bridge = true;
  for (const ns of namespaces) {
    const index = Number(/^svc(\d+)-/.exec(ns)?.[1]);
    if (!accounted.has(index)) entry(index).namespaces.push(ns);
  }
  report.unclaimed = [...byIndex.values()].sort((a, b) => a.index - b.index);
  for (const list of [report.removed, report.running, report.staleStates]) list.sort((a, b) => a - b);
  return report;
}
