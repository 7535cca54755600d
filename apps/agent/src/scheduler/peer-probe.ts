import type { Checkers } from "@svc/core";
import type { Peer } from "@svc/protocol";
import type { ProbeMetrics } from "../metrics/probe-metrics.ts";
import type { Probers } from "./probers.ts";

/** The per-peer planes the scheduler runs. */
export const PEER_PLANES = ["tcp", "udp", "icmp", "pmtu"] as const;
export type PeerPlane = (typeof PEER_PLANES)[number];
/** Planes whose failure triggers a reactive trace (spec §2.2 mtr). */
export const MTR_TRIGGER_PLANES: readonly PeerPlane[] = ["tcp", "udp", "icmp"];

/** What one peer probe needs. */
export interface PeerProbeContext {
  checkers: Pick<Checkers, "tcp" | "udp" | "icmp"> & Partial<Pick<Checkers, "pmtu">>;
  probers: Probers;
  /** fallback ports for peers that reported none (tcp -> httpPort, udp and pmtu -> grpcPort) */
  ports: { httpPort: number; grpcPort: number };
}

/** A finished peer probe: whether it succeeded and how to record it under the peer's current labels. */
export interface PeerProbeOutcome {
  ok: boolean;
  record(metrics: ProbeMetrics, peer: Peer): void;
}

/**
 * Runs one probe of `plane` to `peer`; undefined when the plane has no prober (icmp without one). The udp
 * echo port serves both udp and pmtu. pmtu's ok is false only for a black hole or a plain failure.
 */
export async function probePeer(
  plane: PeerPlane,
  peer: Peer,
  ctx: PeerProbeContext,
): Promise<PeerProbeOutcome | undefined> {
  const c = ctx.checkers;
  const p = ctx.probers;
  const echoPort = peer.udpPort ?? ctx.ports.grpcPort;
  switch (plane) {
    case "tcp": {
      const port = peer.httpPort ?? ctx.ports.httpPort;
      const r = await p.tcp.probe({ address: peer.address, port, timeoutMs: c.tcp.timeout });
      return { ok: r.ok, record: (m, now) => m.recordTcp(now, r) };
    }
    case "udp": {
      const target = {
        address: peer.address,
        port: echoPort,
        timeoutMs: c.udp.timeout,
        packets: c.udp.packets,
      };
      const r = await p.udp.probe(target);
      return { ok: r.ok, record: (m, now) => m.recordUdp(now, r) };
    }
    case "icmp": {
      if (!p.icmp) return undefined;
      const r = await p.icmp.probe({ address: peer.address, timeoutMs: c.icmp.timeout });
      return { ok: r.ok, record: (m, now) => m.recordIcmp(now, r) };
    }
    case "pmtu": {
      if (!p.pmtu || !c.pmtu) return undefined;
      const target = { address: peer.address, port: echoPort, timeoutMs: c.pmtu.timeout, size: c.pmtu.size };
      const r = await p.pmtu.probe(target);
      return { ok: r.ok, record: (m, now) => m.recordPmtu(now, r) };
    }
  }
}
