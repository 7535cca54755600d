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

/** Every cell of the fleet, sources and destinations in node-name order. */
export function buildMatrix(
  view: FleetView,
  protocol: FleetProtocol,
  figures: FigureMap,
  now: Date,
): FleetMatrix {
  const cells: MatrixCell[] = [];
  for (const s of view.agents)
    for (const d of view.agents)
      if (s.name !== d.name) cells.push(cellOf(view, protocol, figures, s.name, d.name));
  return {
    protocol,
    generatedAt: now.toISOString(),
    sparse: view.sparse,
    nodes: view.agents.map((a) => ({ name: a.name, zone: a.zone, external: a.external, planes: a.planes })),
    cells,
  };
}
