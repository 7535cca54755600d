import { isIP } from "node:net";
import { loadBinding, type NativeBinding, type NativeHandle, type NativeOpenOptions } from "./binding.ts";

/** Address family. */
export type Family = 4 | 6;

/** One received datagram. */
export interface Datagram {
  /** Payload. ICMP sockets: the ICMP header and body (IPv4 raw: the IP header is stripped). */
  data: Buffer;
  address: string;
  port: number;
  /** Destination address the datagram reached (needs pktInfo; IPv4 raw sockets always report it). */
  localAddress?: string;
  /** Interface it arrived on (needs pktInfo). */
  ifindex?: number;
  /** Received TTL / hop limit (needs recvTtl; IPv4 raw sockets always report it). */
  ttl?: number;
  /** When the kernel received it (its timestamp, moved onto process.hrtime.bigint()'s clock). */
  receivedAt: bigint;
}

/** One entry of the socket's error queue (IP_RECVERR / IPV6_RECVERR). */
export interface SocketError {
  /** Who raised it: the local stack, an ICMP or ICMPv6 message. */
  origin: "local" | "icmp" | "icmp6" | "other";
  /** ICMP type (0 for local errors). */
  type: number;
  code: number;
  /** ee_info: next-hop MTU for frag-needed / packet-too-big and local EMSGSIZE. */
  info: number;
  /** errno the error maps to (EMSGSIZE, ECONNREFUSED, EHOSTUNREACH...). */
  errno: number;
  /** Address of the node that sent the ICMP error. */
  offender?: string;
  /** Original destination of the datagram that failed. */
  address?: string;
  port?: number;
  /** Payload of the datagram that failed (as far as the ICMP error quoted it). */
  data: Buffer;
}

/** Socket kinds as opened. */
export type RawSocketKind = "udp" | "icmp-dgram" | "icmp-raw" | "raw";

/** Options of RawSocket.open. */
export interface RawSocketOptions {
  family: Family;
  /**
   * udp: a UDP socket. icmp: an unprivileged ICMP (ping) socket, falling back to a raw ICMP socket when the
   * kernel refuses it (ping_group_range) unless forbidRaw. icmp-dgram / icmp-raw: exactly that kind.
   * raw: a raw socket for `protocol` (needs CAP_NET_RAW; sends without IP header).
   */
  kind: "udp" | "icmp" | "icmp-dgram" | "icmp-raw" | "raw";
  forbidRaw?: boolean;
  /** IP protocol number for kind raw. */
  protocol?: number;
  /** IPv6 raw: offset of the checksum field the kernel fills (e.g. 6 for UDP). */
  checksumOffset?: number;
  bind?: { address: string; port: number };
  v6Only?: boolean;
  recvErr?: boolean;
  pktInfo?: boolean;
  recvTtl?: boolean;
  broadcast?: boolean;
  pmtuDiscover?: "dont" | "want" | "do" | "probe";
  /**
   * false: nothing is read on the event loop; the owner calls drain() when it is awake anyway (receivedAt is
   * the kernel's arrival time either way). Default true: datagrams are delivered as they arrive.
   */
  watch?: boolean;
  /** Receive buffer size, bytes (SO_RCVBUFFORCE when privileged, else SO_RCVBUF capped by rmem_max). */
  recvBufferBytes?: number;
}

/** Per-send options. */
export interface SendOptions {
  /** TTL / hop limit of this datagram only. */
  ttl?: number;
  /** Source address of this datagram (IP_PKTINFO / IPV6_PKTINFO); must be a local address. */
  sourceAddress?: string;
}

/** Error thrown for local socket failures; `code` is the errno name (EMSGSIZE, EACCES...). */
export type NativeSocketError = Error & { code: string; errno: number };

const pmtuValue = { dont: 0, want: 1, do: 2, probe: 3 } as const;
const kindValue = { udp: 0, "icmp-dgram": 1, "icmp-raw": 2, raw: 2 } as const;

/**
 * A datagram socket with the options Node's dgram lacks. Reception runs on the libuv loop (uv_poll on the fd),
 * or on demand (drain()) for a socket opened with watch: false; set the callbacks with onMessage/onError.
 * A watched open socket keeps the process alive unless unref()'d.
 */
export class RawSocket {
  readonly kind: RawSocketKind;
  readonly family: Family;
  #handle: NativeHandle;
  #binding: NativeBinding;
  #onMessage: (d: Datagram) => void = () => {};
  #onError: (e: SocketError) => void = () => {};
  #closed = false;

  private constructor(binding: NativeBinding, handle: NativeHandle, kind: RawSocketKind, family: Family) {
    this.#binding = binding;
    this.#handle = handle;
    this.kind = kind;
    this.family = family;
  }

  /** Opens a socket. Throws a NativeSocketError (code EACCES, EPERM, EADDRINUSE...) when it cannot. */
  static open(opts: RawSocketOptions): RawSocket {
    const binding = loadBinding();
    if (opts.kind === "icmp") {
      try {
        return RawSocket.open({ ...opts, kind: "icmp-dgram" });
      } catch (err) {
        const code = (err as NativeSocketError).code;
        if (opts.forbidRaw || (code !== "EACCES" && code !== "EPERM")) throw err;
        return RawSocket.open({ ...opts, kind: "icmp-raw" });
      }
    }
    const native: NativeOpenOptions = {
      v6Only: opts.v6Only,
      recvErr: opts.recvErr,
      pktInfo: opts.pktInfo,
      recvTtl: opts.recvTtl,
      broadcast: opts.broadcast,
      protocol: opts.protocol,
      checksumOffset: opts.checksumOffset,
      watch: opts.watch ?? true,
      recvBuffer: opts.recvBufferBytes,
    };
    if (opts.pmtuDiscover) native.pmtu = pmtuValue[opts.pmtuDiscover];
    if (opts.bind) {
      native.bindAddress = opts.bind.address;
      native.bindPort = opts.bind.port;
    }
    const kind = opts.kind;
    let sock: RawSocket | undefined;
    const handle = binding.open(
      opts.family,
      kindValue[kind],
      native,
      (data, address, port, localAddress, ifindex, ttl, receivedAt) => {
        const d: Datagram = { data, address, port, receivedAt };
        if (localAddress !== undefined) d.localAddress = localAddress;
        if (ifindex >= 0) d.ifindex = ifindex;
        if (ttl >= 0) d.ttl = ttl;
        if (sock) sock.#onMessage(d);
      },
      (origin, type, code, info, errno, offender, address, port, data) => {
        const e: SocketError = {
          origin: origin as SocketError["origin"],
          type,
          code,
          info,
          errno,
          data,
        };
        if (offender !== undefined) e.offender = offender;
        if (address !== undefined) {
          e.address = address;
          e.port = port;
        }
        if (sock) sock.#onError(e);
      },
    );
    sock = new RawSocket(binding, handle, kind, opts.family);
    return sock;
  }

  /** Local port; for ICMP ping sockets the echo identifier the kernel uses (0 before bind/first send). */
  localPort(): number {
    return this.#binding.localPort(this.#handle);
  }

  /**
   * Sends one datagram (port ignored for ICMP kinds). Throws a NativeSocketError for local errors, e.g.
   * EMSGSIZE when a DF datagram exceeds the known path MTU, EAGAIN when the send buffer is full.
   */
  send(data: Buffer, address: string, port: number, opts?: SendOptions): number {
    if (isIP(address.split("%")[0] ?? "") !== this.family) {
      throw new TypeError(`address ${address} is not an IPv${this.family} literal`);
    }
    return this.#binding.send(this.#handle, data, address, port, opts?.ttl ?? -1, opts?.sourceAddress);
  }

  /**
   * When the last datagram was handed to the kernel: process.hrtime.bigint()'s clock, read in C right before
   * sendmsg (0n before any send). RTTs measured from it leave out the send call's own JavaScript and N-API work.
   */
  lastSentAt(): bigint {
    return this.#binding.lastSentAt(this.#handle);
  }

  /**
   * Reads every datagram and error-queue entry pending now, calling onMessage / onError before it returns;
   * returns how many. For sockets opened with watch: false (harmless on the others). An exception thrown by a
   * callback ends the drain and propagates.
   */
  drain(): number {
    if (this.#closed) return 0;
    return this.#binding.drain(this.#handle);
  }

  /** Connects (fixes the peer) so mtu() can report the route MTU. */
  connect(address: string, port: number): void {
    this.#binding.connect(this.#handle, address, port);
  }

  /** IP_MTU / IPV6_MTU of the connected route, or -1 when not connected. */
  mtu(): number {
    return this.#binding.mtu(this.#handle);
  }

  /** Sets the receive callback (replaces the previous one). */
  onMessage(cb: (d: Datagram) => void): void {
    this.#onMessage = cb;
  }

  /** Sets the error-queue callback (needs recvErr). */
  onError(cb: (e: SocketError) => void): void {
    this.#onError = cb;
  }

  /** Lets the process exit while this socket is open. */
  unref(): this {
    if (!this.#closed) this.#binding.ref(this.#handle, false);
    return this;
  }

  ref(): this {
    if (!this.#closed) this.#binding.ref(this.#handle, true);
    return this;
  }

  /** Stops reception and closes the fd; idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#binding.close(this.#handle);
  }
}

/** MTU of the route toward destination (connect a UDP socket, read IP_MTU); throws for no route. */
export function interfaceMtuFor(destination: string): number {
  const family = isIP(destination.split("%")[0] ?? "");
  if (family !== 4 && family !== 6) throw new TypeError(`not an IP literal: ${destination}`);
  return loadBinding().interfaceMtu(family, destination);
}

/** Whether this process may open an unprivileged ICMP (ping) socket for family (net.ipv4.ping_group_range). */
export function icmpUnprivilegedAllowed(family: Family): boolean {
  return loadBinding().icmpDgramAllowed(family);
}
