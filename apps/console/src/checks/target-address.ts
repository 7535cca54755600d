/**
 * Reads a target address as the API takes it: an http(s) URL (kind `url`, the whole URL kept, port from the URL or
 * 0) or `host`, `host:port`, `[v6]:port`, a bare IPv6 literal (kind `host`). Anything else is not an address.
 */
import { isIP } from "node:net";

/** A target address read into the external-check spec's fields (spec §2.6). */
export interface ParsedAddress {
  kind: "host" | "url";
  address: string;
  port: number;
}

const HOST =
  /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?$/;

function port(s: string): number | undefined {
  if (!/^\d{1,5}$/.test(s)) return undefined;
  const n = Number(s);
  return n >= 1 && n <= 65535 ? n : undefined;
}

const hostOk = (h: string) => isIP(h) !== 0 || HOST.test(h);

/** The address read, or a reason it is not one. */
export function parseTargetAddress(raw: string): ParsedAddress | { error: string } {
  const s = raw.trim();
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
    let u: URL;
    try {
      u = new URL(s);
    } catch {
      return { error: "address: not a valid URL" };
    }
    if (u.protocol !== "http:" && u.protocol !== "https:")
      return { error: "address: only http and https URLs are targets" };
    return { kind: "url", address: s, port: u.port === "" ? 0 : Number(u.port) };
  }
  const bracketed = /^\[([0-9A-Fa-f:.]+)\](?::(\d+))?$/.exec(s);
  if (bracketed) {
    const [, host = "", p] = bracketed;
    if (isIP(host) !== 6) return { error: "address: not an IPv6 literal inside [ ]" };
    const n = p === undefined ? 0 : port(p);
    if (n === undefined) return { error: "address: port must be 1-65535" };
    return { kind: "host", address: host, port: n };
  }
  if (isIP(s) === 6) return { kind: "host", address: s, port: 0 };
  const colon = s.lastIndexOf(":");
  const host = colon < 0 ? s : s.slice(0, colon);
  if (!hostOk(host)) return { error: "address: not host[:port] nor an http(s) URL" };
  if (colon < 0) return { kind: "host", address: host, port: 0 };
  const n = port(s.slice(colon + 1));
  if (n === undefined) return { error: "address: port must be 1-65535" };
  return { kind: "host", address: host, port: n };
}
