/**
 * Node page (/nodes/:name?protocol=): the node's tier (its worst pair), health percent with the
 * `{scored} of {total} pairs scored` note, and the To peers / From peers table (To unless inbound is strictly
 * worse). An unknown node gets the named 404 card.
 */
import { useQuery } from "@tanstack/react-query";
import { useNavigate, useParams, useSearch } from "@tanstack/react-router";
import { useState } from "react";
import { FleetError, fleetFailure, Loading } from "../../components/fleet/fleet-state.tsx";
import { defaultDirection, PROTOCOL_LABEL, parseProtocol } from "../../components/fleet/format.ts";
import { ProtocolSwitch, TierBadge } from "../../components/fleet/protocol-switch.tsx";
import { nodeQuery } from "../../components/fleet/queries.tsx";
import { SuspectNote } from "../../components/fleet/suspect-note.tsx";
import type { FleetNode } from "../../components/fleet/types.ts";
import { useApp } from "../../context.tsx";
import { useAt } from "../../shell/time-machine.tsx";
import { RecentChanges } from "../events/recent-changes.tsx";
import { PeerTable } from "./peer-table.tsx";

function Health(p: { n: FleetNode }) {
  const partly = p.n.scored < p.n.total;
  return (
    <dl className="facts">
      <dt>Tier</dt>
      <dd data-testid="node-tier">
        <TierBadge tier={p.n.tier} />
      </dd>
      <dt>Health</dt>
      <dd data-testid="node-health">
        {p.n.healthPercent === undefined ? "—" : `${p.n.healthPercent.toFixed(1)}%`}
        {partly ? (
          <span className="muted small">
            {" "}
            ({p.n.scored} of {p.n.total} pairs scored)
          </span>
        ) : null}
      </dd>
      <dt>Zone</dt>
      <dd>{p.n.zone}</dd>
      <dt>Ready</dt>
      <dd>{p.n.ready ? <span className="ok">yes</span> : <span className="warn">no</span>}</dd>
    </dl>
  );
}

/** The Node page. */
export function NodePage() {
  const { api } = useApp();
  const name = useParams({ strict: false }).name ?? "";
  const protocol = parseProtocol(useSearch({ strict: false }).protocol);
  const navigate = useNavigate();
  const at = useAt();
  const q = useQuery(nodeQuery(api, name, protocol, at));
  const [chosen, setChosen] = useState<"to" | "from" | null>(null);
  const n = q.data;
  const direction = chosen ?? (n ? defaultDirection(n.to, n.from) : "to");
  return (
    <section className="page">
      <h1>Node {name}</h1>
      <div className="toolbar">
        <ProtocolSwitch
          value={protocol}
          onChange={(v) => void navigate({ to: "/nodes/$name", params: { name }, search: { protocol: v } })}
        />
      </div>
      <SuspectNote subject={{ node: name }} at={at} />
      <div className="with-rail">
        <div>
          {q.error ? <FleetError error={q.error} subject={name} /> : null}
          {q.isPending ? <Loading what={`node ${name}`} /> : null}
          {n ? (
            <>
              <div className="card">
                <h2>{PROTOCOL_LABEL[protocol]} health</h2>
                <Health n={n} />
              </div>
              <div className="card">
                <div className="tabs" role="tablist" aria-label="Direction">
                  {(["to", "from"] as const).map((d) => (
                    <button
                      key={d}
                      type="button"
                      role="tab"
                      aria-selected={direction === d}
                      className={direction === d ? "tab active" : "tab"}
                      onClick={() => setChosen(d)}
                    >
                      {d === "to" ? "To peers" : "From peers"}
                    </button>
                  ))}
                </div>
                <PeerTable
                  node={n.name}
                  direction={direction}
                  rows={direction === "to" ? n.to : n.from}
                  protocol={protocol}
                />
              </div>
            </>
          ) : null}
        </div>
        {q.error && fleetFailure(q.error).key === "unknown" ? null : (
          <RecentChanges object={{ kind: "node", name }} {...(at ? { at } : {})} />
        )}
      </div>
    </section>
  );
}
