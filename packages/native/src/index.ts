export { loadBinding, type NativeBinding } from "./binding.ts";
export { putF64, putU16, putU32, u16, u32 } from "./bytes.ts";
export {
  buildEchoRequest,
  type EchoMessage,
  ICMP_ECHO_REPLY,
  ICMP_ECHO_REQUEST,
  icmpErrorName,
  internetChecksum,
  parseEchoReply,
} from "./icmp-packet.ts";
export {
  type Datagram,
  type Family,
  icmpUnprivilegedAllowed,
  interfaceMtuFor,
  type NativeSocketError,
  RawSocket,
  type RawSocketKind,
  type RawSocketOptions,
  type SendOptions,
  type SocketError,
} from "./raw-socket.ts";
export { startTcpProbe, type TcpProbeHandle, type TcpProbeOutcome } from "./tcp-probe.ts";
