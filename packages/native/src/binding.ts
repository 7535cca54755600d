import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** Opaque handle of one native socket. */
export type NativeHandle = object;

/** Receive callback arguments as the addon passes them (positional, to keep the hot path cheap). */
export type NativeMessageCallback = (
  data: Buffer,
  address: string,
  port: number,
  localAddress: string | undefined,
  ifindex: number,
  ttl: number,
  receivedAt: bigint,
) => void;

/** Error-queue callback arguments as the addon passes them. */
export type NativeErrorCallback = (
  origin: string,
  type: number,
  code: number,
  info: number,
  errno: number,
  offender: string | undefined,
  address: string | undefined,
  port: number,
  data: Buffer,
) => void;

/** Options read by the addon's open(). */
export interface NativeOpenOptions {
  bindAddress?: string;
  bindPort?: number;
  v6Only?: boolean;
  recvErr?: boolean;
  pktInfo?: boolean;
  recvTtl?: boolean;
  broadcast?: boolean;
  /** IP(V6)_MTU_DISCOVER value: 0 dont, 1 want, 2 do, 3 probe. */
  pmtu?: number;
  /** raw sockets: IP protocol number (default ICMP / ICMPv6). */
  protocol?: number;
  /** raw IPv6 sockets: IPV6_CHECKSUM offset so the kernel fills the checksum. */
  checksumOffset?: number;
  /** false: no reception on the loop; the owner calls drain(). Default true. */
  watch?: boolean;
  /** SO_RCVBUF(FORCE) bytes; 0/absent = the kernel default */
  recvBuffer?: number;
}

/** Completion of a tcp probe: errno name and text on failure; ns from start, -1 when not reached. */
export type NativeTcpProbeCallback = (
  code: string | undefined,
  message: string | undefined,
  connectNs: number,
  totalNs: number,
) => void;

/** The functions build/Release/svc_native.node exports. */
export interface NativeBinding {
  open(
    family: 4 | 6,
    kind: 0 | 1 | 2,
    opts: NativeOpenOptions,
    onMessage: NativeMessageCallback,
    onError: NativeErrorCallback,
  ): NativeHandle;
  send(
    h: NativeHandle,
    data: Buffer,
    address: string,
    port: number,
    ttl: number,
    source: string | undefined,
  ): number;
  connect(h: NativeHandle, address: string, port: number): void;
  /** reads what is pending now (sockets opened with watch: false); callbacks run before it returns */
  drain(h: NativeHandle): number;
  tcpProbe(family: 4 | 6, address: string, port: number, onDone: NativeTcpProbeCallback): NativeHandle;
  /** closes a tcp probe without calling onDone; ns to connect, or -1 */
  tcpProbeAbort(h: NativeHandle): number;
  /** uv_hrtime() (process.hrtime.bigint()'s clock) right before the last sendmsg; 0n before any */
  lastSentAt(h: NativeHandle): bigint;
  localPort(h: NativeHandle): number;
  mtu(h: NativeHandle): number;
  ref(h: NativeHandle, on: boolean): void;
  close(h: NativeHandle): void;
  interfaceMtu(family: 4 | 6, address: string): number;
  icmpDgramAllowed(family: 4 | 6): boolean;
}

// Resolved through the package (not relative to this file) so a bundled agent finds the addon too.
const addonPath = join(
  dirname(createRequire(import.meta.url).resolve("@svc/native/package.json")),
  "build/Release/svc_native.node",
);
let loaded: NativeBinding | undefined;

/**
 * Loads the compiled addon once (a module-level cache of an immutable binding). Throws an Error with code
 * ERR_SVC_NATIVE_NOT_BUILT and a remedy when the addon has not been built.
 */
export function loadBinding(): NativeBinding {
  if (loaded) return loaded;
  if (!existsSync(addonPath)) {
    const err = new Error(
      `@svc/native is not built: ${addonPath} is missing. Run "npm rebuild -w @svc/native" ` +
        "(needs python3, make and a C compiler).",
    ) as Error & { code: string };
    err.code = "ERR_SVC_NATIVE_NOT_BUILT";
    throw err;
  }
  const require = createRequire(import.meta.url);
  loaded = require(addonPath) as NativeBinding;
  return loaded;
}
