import type { PeerCertificate } from "node:tls";

/**
 * The identities a client certificate asserts: its subject common name(s) and every `DNS:` subjectAltName.
 * Other SAN kinds (IP, URI, email) are not identities here: a node name is a DNS-1123 name.
 */
export function certificateIdentities(cert: PeerCertificate | undefined): string[] {
  if (cert === undefined || cert === null) return [];
  const out: string[] = [];
  const cn: unknown = cert.subject?.CN;
  if (typeof cn === "string") out.push(cn);
  else if (Array.isArray(cn)) for (const c of cn) if (typeof c === "string") out.push(c);
  for (const part of splitSan(cert.subjectaltname ?? "")) {
    if (part.startsWith("DNS:")) out.push(unquote(part.slice(4)));
  }
  return out.filter((s) => s !== "");
}

/**
 * Identity pinning rule: a node name is pinned to a certificate when it equals (ASCII case-insensitively, as
 * DNS names compare) the subject CN or one of the DNS subjectAltNames. Wildcards are not expanded: `*.edge`
 * pins only the literal name `*.edge`, which no node can register.
 */
export function identityMatches(identities: readonly string[], nodeName: string): boolean {
  const want = nodeName.toLowerCase();
  return identities.some((id) => id.toLowerCase() === want);
}

/** Splits Node's `subjectaltname` ("DNS:a, IP Address:1.2.3.4, DNS:\"b, c\"") on separators outside quotes. */
function splitSan(san: string): string[] {
  const parts: string[] = [];
  let cur = "";
  let quoted = false;
  for (let i = 0; i < san.length; i++) {
    const ch = san[i];
    if (ch === '"' && san[i - 1] !== "\\") quoted = !quoted;
    if (!quoted && ch === "," && san[i + 1] === " ") {
      parts.push(cur);
      cur = "";
      i++;
      continue;
    }
    cur += ch;
  }
  if (cur !== "") parts.push(cur);
  return parts;
}

function unquote(v: string): string {
  if (v.startsWith('"') && v.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(v);
      return typeof parsed === "string" ? parsed : v;
    } catch {
      return v;
    }
  }
  return v;
}
