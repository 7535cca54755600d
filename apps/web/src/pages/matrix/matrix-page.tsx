/**
 * Matrix (route /matrix?protocol=): one cell per ordered pair for the chosen protocol, coloured by tier. Small
 * fleets get a DOM grid of focusable links; above CANVAS_THRESHOLD nodes a canvas with hover and click, plus a
 * node picker for the keyboard.
 */
import { useQuery } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { useMemo, useState } from "react";
import { FleetError, Loading } from "../../components/fleet/fleet-state.tsx";
import { cellFigures, PROTOCOL_LABEL, parseProtocol } from "../../components/fleet/format.ts";
import { ProtocolSwitch, TierLegend } from "../../components/fleet/protocol-switch.tsx";
import { matrixQuery, suspectsQuery } from "../../components/fleet/queries.tsx";
import {
  explanation,
  outlineEdges,
  suspectElement,
  suspectTitle,
} from "../../components/fleet/suspect-words.ts";
import type { MatrixCell } from "../../components/fleet/types.ts";
import { useApp } from "../../context.tsx";
import { UnfedNotice, usePushed } from "../../live/use-pushed.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { CellGrid } from "./cell-grid.ts";
import { MatrixCanvas } from "./matrix-canvas.tsx";
import { CANVAS_THRESHOLD, orderNodes } from "./matrix-geometry.ts";
import { MatrixGrid } from "./matrix-grid.tsx";
import { NodePicker } from "./node-picker.tsx";

/** The Matrix page. */
export function MatrixPage() {
  const { api } = useApp();
  const protocol = parseProtocol(useSearch({ strict: false }).protocol);
  const navigate = useNavigate();
  const at = useAt();
  // tier changes arrive on the matrix topic; no polling while fed
  const fed = usePushed(["matrix"], ["fleet", "matrix", protocol], at === undefined);
  const q = useQuery(matrixQuery(api, protocol, at, fed));
  const [details, setDetails] = useState<MatrixCell | null>(null);
  const nodes = useMemo(() => orderNodes(q.data?.nodes ?? []), [q.data]);
  const grid = useMemo(() => new CellGrid(nodes, q.data), [nodes, q.data]);
  const large = nodes.length > CANVAS_THRESHOLD;
  // where is the fault: the suspects of this protocol outline their rows, columns and blocks
  const sus = useQuery(suspectsQuery(api, at)).data;
  const outlined = useMemo(
    () => explanation(sus?.suspects).filter((s) => s.protocols.includes(protocol)),
    [sus, protocol],
  );
  const outline = useMemo(
    () =>
      outlineEdges(
        outlined,
        protocol,
        grid.nodes.map((x) => x.name),
      ),
    [outlined, protocol, grid],
  );
  return (
    <section className="page">
      <h1>Matrix</h1>
      <UnfedNotice enabled={at === undefined} />
      <div className="toolbar">
        <ProtocolSwitch
          value={protocol}
          onChange={(v) => void navigate({ to: "/matrix", search: { protocol: v } })}
        />
        {q.data ? (
          <span className="muted small">
            {nodes.length} nodes · {PROTOCOL_LABEL[protocol]} · as of{" "}
            {new Date(q.data.generatedAt).toLocaleTimeString()}
          </span>
        ) : null}
      </div>
      {q.error ? <FleetError error={q.error} /> : null}
      {q.isPending ? <Loading what="the matrix" /> : null}
      {q.data ? (
        <>
          {q.data.sparse ? (
            <p className="muted" data-testid="sparse-note">
              A sparse probe plan is in force: pairs outside it show as Not planned.
            </p>
          ) : null}
          {nodes.length === 0 ? <p>No agents have registered yet.</p> : null}
          <TierLegend />
          {outlined.length > 0 ? (
            <p className="outline-note" data-testid="matrix-outline-note">
              <span className="outline-swatch" aria-hidden="true" /> Outlined, where the fault is:{" "}
              {outlined.map((s) => `${suspectTitle(s)} ${suspectElement(s)}`).join("; ")}
            </p>
          ) : null}
          <p className="cell-details" role="status" data-testid="cell-details">
            {details
              ? cellFigures(details, protocol).join(" · ")
              : large
                ? "Hover a cell for its figures; click to open the pair."
                : "Hover or focus a cell for its figures; Enter opens the pair."}
          </p>
          {large ? (
            <>
              <NodePicker nodes={nodes} protocol={protocol} />
              <MatrixCanvas grid={grid} protocol={protocol} onDetails={setDetails} outline={outline} />
            </>
          ) : nodes.length > 0 ? (
            <MatrixGrid grid={grid} protocol={protocol} onDetails={setDetails} outline={outline} />
          ) : null}
        </>
      ) : null}
    </section>
  );
}
