/** Keyboard way into a large matrix: pick a source (and optionally a destination), open its Node or Pair page. */
import { useNavigate } from "@tanstack/react-router";
import { useId, useState } from "react";
import type { FleetProtocol, MatrixNode } from "../../components/fleet/types.ts";

/** The picker form. */
export function NodePicker(p: { nodes: MatrixNode[]; protocol: FleetProtocol }) {
  const navigate = useNavigate();
  const [source, setSource] = useState(p.nodes[0]?.name ?? "");
  const [destination, setDestination] = useState("");
  const id = useId();
  return (
    <form
      className="inline-form node-picker"
      aria-label="Node picker"
      onSubmit={(e) => {
        e.preventDefault();
        if (source === "") return;
        if (destination !== "" && destination !== source)
          void navigate({ to: "/pairs/$source/$destination", params: { source, destination } });
        else
          void navigate({ to: "/nodes/$name", params: { name: source }, search: { protocol: p.protocol } });
      }}
    >
      <label htmlFor={`${id}-node`}>Node</label>
      <select id={`${id}-node`} value={source} onChange={(e) => setSource(e.target.value)}>
        {p.nodes.map((n) => (
          <option key={n.name} value={n.name}>
            {n.name}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-peer`}>Peer</label>
      <select id={`${id}-peer`} value={destination} onChange={(e) => setDestination(e.target.value)}>
        <option value="">— none: open the node —</option>
        {p.nodes
          .filter((n) => n.name !== source)
          .map((n) => (
            <option key={n.name} value={n.name}>
              {n.name}
            </option>
          ))}
      </select>
      <button type="submit" className="primary">
        {destination !== "" && destination !== source ? "Open pair" : "Open node"}
      </button>
    </form>
  );
}
