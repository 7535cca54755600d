import type { Server } from "node:http";
import type { Socket } from "node:net";

/**
 * Makes `server` answer a connection that closes without sending a byte (a peer's tcp probe: connect, FIN)
 * with a reset instead of a FIN. The probe has its answer either way (docs/decisions.md, tcp probe on the
 * wire); a reset leaves neither end a TIME_WAIT socket, nor a conntrack entry held 120 s in TIME_WAIT. A
 * connection that sent anything (an HTTP request) closes as node:http closes it. Call before the server
 * accepts: the listener goes before node:http's own, so its `end` handler runs first.
 */
export function resetBareCloses(server: Server): void {
  server.prependListener("connection", (socket: Socket) => {
    socket.once("end", () => {
      if (socket.bytesRead === 0 && !socket.destroyed) socket.resetAndDestroy();
    });
  });
}
