/** The browser's WebSocket behind LiveSocket's SocketLike (handlers are forwarded, so LiveSocket may swap them). */
import type { SocketLike } from "./live-socket.ts";

/** Opens a WebSocket to `url`. */
export function browserSocket(url: string): SocketLike {
  const ws = new WebSocket(url);
  const s: SocketLike = {
    get readyState() {
      return ws.readyState;
    },
    onopen: null,
    onclose: null,
    onmessage: null,
    onerror: null,
    send: (data) => ws.send(data),
    close: (code, reason) => ws.close(code, reason),
  };
  ws.onopen = (e) => s.onopen?.(e);
  ws.onclose = (e) => s.onclose?.({ code: e.code, reason: e.reason });
  ws.onmessage = (e) => s.onmessage?.({ data: e.data });
  ws.onerror = (e) => s.onerror?.(e);
  return s;
}
