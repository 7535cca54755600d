/**
 * The console's one multiplexed WebSocket (`GET /ws`, spec §6.2): a client subscribes to topics; every event on a
 * topic carries that topic's sequence number; a client that resubscribes with its last seen `seq` is replayed
 * from there by the replica that issued it, and told of a gap otherwise.
 */
import { z } from "zod";

/** Topics: the live feed, topology and matrix pushes, and one run's progress (`run:{id}`, needs `runs:read`). */
export const Topic = z
  .string()
  .max(200)
  .regex(
    /^(live|topology|matrix|run:[A-Za-z0-9_-]{1,128})$/,
    "topic must be live, topology, matrix or run:{id}",
  );
export type Topic = z.infer<typeof Topic>;

/** Client -> server: start (or resume after `since`) a topic. */
export const WsSubscribe = z.strictObject({
  type: z.literal("subscribe"),
  topic: Topic,
  since: z.number().int().nonnegative().optional().describe("last seen seq on this topic: replay after it"),
});

/** Client -> server: stop a topic. */
export const WsUnsubscribe = z.strictObject({ type: z.literal("unsubscribe"), topic: Topic });

/** Every message a client may send. */
export const WsClientMessage = z
  .discriminatedUnion("type", [WsSubscribe, WsUnsubscribe])
  .meta({ id: "WsClientMessage" });
export type WsClientMessage = z.infer<typeof WsClientMessage>;

/** Server -> client: the subscription holds; `seq` is the topic's current sequence number. */
export const WsSubscribed = z.object({
  type: z.literal("subscribed"),
  topic: z.string(),
  seq: z.number().int(),
});

/** Server -> client: one event on a topic. */
export const WsEvent = z.object({
  type: z.literal("event"),
  topic: z.string(),
  seq: z.number().int().describe("per-topic sequence number, +1 per event"),
  data: z.unknown().describe("the event: a feed event, a topology or matrix change, or run progress"),
});

/** Server -> client: events between `from` and `to` (inclusive) were not delivered (possible loss). */
export const WsGap = z.object({
  type: z.literal("gap"),
  topic: z.string(),
  from: z.number().int(),
  to: z.number().int(),
});

/** Server -> client: a refused subscription or message (e.g. `forbidden` for a topic without its permission). */
export const WsError = z.object({
  type: z.literal("error"),
  topic: z.string().optional(),
  code: z.string(),
  message: z.string(),
});

/** Every message the server may send. */
export const WsServerMessage = z
  .discriminatedUnion("type", [WsSubscribed, WsEvent, WsGap, WsError])
  .meta({ id: "WsServerMessage" });
export type WsServerMessage = z.infer<typeof WsServerMessage>;
