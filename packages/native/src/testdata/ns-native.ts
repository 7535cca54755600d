// Child script the native tests run inside network namespaces they create. Prints one JSON line.
//   unpriv <v4> <v6>: ping over unprivileged ICMP sockets, and try to open raw ones.
//   path <v4dst> <v6dst>: DF datagrams above the path MTU and TTL-1 datagrams through a router; report errors.
import {
  buildEchoRequest,
  icmpUnprivilegedAllowed,
  interfaceMtuFor,
  RawSocket,
  type SocketError,
} from "../index.ts";

const [mode, v4, v6] = process.argv.slice(2) as [string, string, string];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function openKind(opts: Parameters<typeof RawSocket.open>[0]): string {
  try {
    const s = RawSocket.open(opts);
    s.close();
    return s.kind;
  } catch (err) {
    return (err as { code: string }).code;
  }
}

async function ping(family: 4 | 6, address: string) {
  let s: RawSocket;
  try {
    s = RawSocket.open({ family, kind: "icmp-dgram" });
  } catch (err) {
    return { error: (err as { code: string }).code };
  }
  const got = new Promise<number | undefined>((resolve) => {
    const t = setTimeout(() => resolve(undefined), 2000);
    s.onMessage((d) => {
      clearTimeout(t);
      resolve(d.data.readUInt16BE(6));
    });
  });
  s.send(buildEchoRequest(family, 0, 4242, Buffer.from("svc-native")), address, 0);
  const seq = await got;
  s.close();
  return { kind: s.kind, seq };
}

async function firstError(family: 4 | 6, dst: string, size: number, ttl?: number) {
  const s = RawSocket.open({ family, kind: "udp", recvErr: true, pmtuDiscover: "do" });
  const errs: SocketError[] = [];
  s.onError((e) => errs.push(e));
  s.send(Buffer.alloc(size), dst, 9, ttl === undefined ? undefined : { ttl });
  for (let i = 0; i < 100 && errs.length === 0; i++) await sleep(20);
  let again = "sent";
  try {
    s.send(Buffer.alloc(size), dst, 9);
  } catch (err) {
    again = (err as { code: string }).code;
  }
  s.close();
  const e = errs[0];
  return e && { origin: e.origin, type: e.type, code: e.code, info: e.info, offender: e.offender, again };
}

if (mode === "unpriv") {
  console.log(
    JSON.stringify({
      allowed4: icmpUnprivilegedAllowed(4),
      allowed6: icmpUnprivilegedAllowed(6),
      ping4: await ping(4, v4),
      ping6: await ping(6, v6),
      raw4: openKind({ family: 4, kind: "icmp-raw" }),
      raw6: openKind({ family: 6, kind: "icmp-raw" }),
      fallback4: openKind({ family: 4, kind: "icmp" }),
      fallback6: openKind({ family: 6, kind: "icmp" }),
      forbidRaw4: openKind({ family: 4, kind: "icmp", forbidRaw: true }),
    }),
  );
} else {
  console.log(
    JSON.stringify({
      mtu4before: interfaceMtuFor(v4),
      big4: await firstError(4, v4, 1400),
      mtu4after: interfaceMtuFor(v4),
      ttl4: await firstError(4, v4, 100, 1),
      big6: await firstError(6, v6, 1400),
      ttl6: await firstError(6, v6, 100, 1),
    }),
  );
}
