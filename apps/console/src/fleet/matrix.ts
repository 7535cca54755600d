/**
 * The matrix (GET /api/v1/fleet/matrix): one cell per ordered pair of agents. Not run when the source lacks the
 * plane, unplanned under a sparse plan for pairs outside probePlan, else the tier of what was measured.
 */
import type { FleetMatrix, FleetProtocol, MatrixCell } from "@svc/contract";
import { type FigureMap, pairKey } from "./figure-map.ts";
import { type FleetView, isPlanned } from "./fleet-view.ts";
import { verdictOf } from "./tiers.ts";

/** The cell of source -> destination. */
export function cellOf(
  view: FleetView,
  protocol: FleetProtocol,
  figures: FigureMap,
  source: string,
  destination: string,
): MatrixCell {
  if (!(view.byName.get(source)?.planes.includes(protocol) ?? false))
    return { source, destination, tier: "notrun" };
  if (!isPlanned(view, source, destination)) return { source, destination, tier: "unplanned" };
  const f = figures.get(pairKey(source, destination));
  const v = verdictOf(protocol, f);
  const cell: MatrixCell = { source, destination, tier: v.tier };
  if (f?.failRatio !== undefined && protocol !== "pmtu") cell.failRatio = f.failRatio;
  if (f?.lossRatio !== undefined) cell.lossRatio = f.lossRatio;
  if (f?.rttP95Seconds !== undefined) cell.rttP95Seconds = f.rttP95Seconds;
  if (v.pmtu) cell.pmtu = v.pmtu;
  return cell;
}

/**
 * The cells of the fleet, sources and destinations in node-name order: every ordered pair on a full mesh; under a
 * sparse plan the planned pairs only (and every pair of a source that does not run the protocol: not run), the
 * others being unplanned by their absence. 5,000 nodes in a sparse plan are 25 M ordered pairs but ~10 k planned:
 * building a cell for each took 12 s and 2 GiB a refresh.
 */
export function buildMatrix(
  view: FleetView,
  protocol: FleetProtocol,
  figures: FigureMap,
  now: Date,
): FleetMatrix {
  const cells: MatrixCell[] = [];
  const plan = view.plan;
  const order = plan ? new Map(view.agents.map((a, i) => [a.name, i])) : undefined;
  for (const s of view.agents) {
    const dests =
      plan && order && s.planes.includes(protocol)
        ? plannedAgents(view, order, Object.hasOwn(plan, s.name) ? plan[s.name] : undefined)
        : view.agents;
    for (const d of dests) if (s.name !== d.name) cells.push(cellOf(view, protocol, figures, s.name, d.name));
  }
  return {
    protocol,
    generatedAt: now.toISOString(),
    sparse: view.sparse,
    nodes: view.agents.map((a) => ({ name: a.name, zone: a.zone, external: a.external, planes: a.planes })),
    cells,
  };
}

/** The agents among `names` (a source's planned destinations), in node-name order. */
function plannedAgents(
  view: FleetView,
  order: Map<string, number>,
  names: readonly string[] | undefined,
): FleetView["agents"] {
  if (!Array.isArray(names)) return [];
  // a plan list naming a node twice still makes one cell
  const idx = [...new Set(names.flatMap((n) => order.get(n) ?? []))];
  idx.sort((a, b) => a - b);
  return idx.map((i) => view.agents[i]).filter((a) => a !== undefined);
}
