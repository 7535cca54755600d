import { type EventMessage, type EventServiceHandlers, grpc } from "@svc/protocol";
import { DisabledError, NOT_LEADER, NotLeaderError } from "../errors.ts";
import { streamHandler } from "../grpc/grpc-errors.ts";
import { type Logger, silentLogger } from "../logger.ts";
import type { EventBus } from "./event-bus.ts";

export interface EventServiceDeps {
  bus: EventBus;
  isLeader: () => boolean;
  logger?: Logger;
}

/** Status detail a standby answers Subscribe with. */
export const EVENTS_NOT_LEADER = NOT_LEADER;
/** Status detail when `controller.events.enabled` is false. */
export const EVENTS_DISABLED = "events disabled (controller.events.enabled=false)";

/**
 * svc.v1.EventService.Subscribe: UNAVAILABLE `not the leader` on a standby, UNIMPLEMENTED when events are
 * disabled; otherwise response headers go out at once, then replay per the request's `after` map, then live
 * events until the caller cancels or the server shuts down.
 */
export function eventServiceHandlers(deps: EventServiceDeps): EventServiceHandlers {
  const logger = deps.logger ?? silentLogger;
  return {
    Subscribe: streamHandler((call) => {
      if (!deps.bus.enabled) throw new DisabledError(EVENTS_DISABLED);
      if (!deps.isLeader()) throw new NotLeaderError(EVENTS_NOT_LEADER);
      call.sendMetadata(new grpc.Metadata());
      const after: Record<string, number> = {};
      for (const [topic, seq] of Object.entries(call.request.after ?? {})) after[topic] = Number(seq);
      let unsubscribe: (() => void) | undefined = deps.bus.subscribe(
        {
          write: (e: EventMessage) => call.write(e),
          onceDrain: (cb) => call.once("drain", cb),
          end: () => call.end(),
        },
        after,
      );
      const done = (): void => {
        unsubscribe?.();
        unsubscribe = undefined;
      };
      call.on("cancelled", done);
      call.on("close", done);
      call.on("error", done);
      call.on("finish", done);
      logger.debug({ after }, "event subscriber connected");
    }),
  };
}
