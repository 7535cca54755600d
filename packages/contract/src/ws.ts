/**
 * The console's one multiplexed WebSocket (`GET /ws`, spec §6.2): a client subscribes to topics; every event on a
 * topic carries that topic's sequence number; a client that resubscribes with its last seen `seq` (and the
 * `replica` that issued it) is replayed from there by that replica, and told of a gap by any other.
 */
import { z } from "zod";
import { errors } from "./errors.ts";
import { FeedEvent } from "./events.ts";
import { FleetProtocol, MatrixCell } from "./fleet.ts";
import { route } from "./route.ts";

/** Topics: the live feed, topology and matrix pushes, and one run's progress (`run:{id}`, needs `runs:read`). */
export const Topic = z
  .string()
  .max(200)
  .regex(
    /^(live|topology|matrix|run:[A-Za-z0-9_-]{1,128})$/,
    "topic must be live, topology, matrix or run:{id}",
  );
export type Topic = z.infer<typeof Topic>;

/** Largest client message (bytes); a larger frame closes the socket with 1009. */
export const WS_MAX_CLIENT_MESSAGE = 4096;
/** Topics one socket may hold at once. */
export const WS_MAX_TOPICS = 64;
/** Events each replica keeps per topic for replay after a resume cursor. */
export const WS_REPLAY_RING = 2000;
/** Close code of a socket refused by a connection cap (spec §8.1). */
export const WS_CLOSE_TRY_AGAIN = 1013;

/** Client -> server: start (or resume after `since`) a topic. */
export const WsSubscribe = z.strictObject({
  type: z.literal("subscribe"),
  topic: Topic,
  since: z.number().int().nonnegative().optional().describe("last seen seq on this topic: replay after it"),
  replica: z
    .string()
    .max(64)
    .optional()
    .describe("the `replica` of the subscribed message that issued `since`; another replica reports a gap"),
});
export type WsSubscribe = z.infer<typeof WsSubscribe>;

/** Client -> server: stop a topic. */
export const WsUnsubscribe = z.strictObject({ type: z.literal("unsubscribe"), topic: Topic });

/** Every message a client may send. */
export const WsClientMessage = z
  .discriminatedUnion("type", [WsSubscribe, WsUnsubscribe])
  .meta({ id: "WsClientMessage" });
export type WsClientMessage = z.infer<typeof WsClientMessage>;

/** Server -> client: the subscription holds; `seq` is the topic's current sequence number on this replica. */
export const WsSubscribed = z.object({
  type: z.literal("subscribed"),
  topic: z.string(),
  seq: z.number().int(),
  replica: z.string().describe("this replica's id for this process lifetime: send it back with `since`"),
});

/** Server -> client: one event on a topic. */
export const WsEvent = z.object({
  type: z.literal("event"),
  topic: z.string(),
  seq: z.number().int().describe("per-topic sequence number, +1 per event"),
  data: z
    .unknown()
    .describe("live: FeedEvent; topology: TopologyPush; matrix: MatrixPush; run:{id}: that run's progress"),
});
export type WsEvent = z.infer<typeof WsEvent>;

/**
 * Server -> client: events `from` to `to` (inclusive) were not delivered (possible loss). `to` is always in this
 * replica's numbering, so a client continues from `to` for every reason: beyond-ring, slow-consumer and upstream
 * take up those sequence numbers on this replica (an upstream gap is kept in the replay ring like an event); for
 * other-replica, `from` is the client's cursor + 1 (the other replica's numbering) and `to` the `seq` of the
 * `subscribed` message just sent.
 */
export const WsGap = z.object({
  type: z.literal("gap"),
  topic: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  reason: z
    .enum(["other-replica", "beyond-ring", "slow-consumer", "upstream"])
    .describe(
      "other-replica: the cursor came from another replica; beyond-ring: older than this replica keeps; " +
        "slow-consumer: this socket fell behind; upstream: the controller stream reported missed events",
    ),
});

/**
 * Server -> client: whether this replica receives the controller's event stream (spec §6.2 degraded state 1).
 * Sent on connect and on every change; while `fed` is false Matrix and Topology poll every 15 s.
 */
export const WsStatus = z.object({
  type: z.literal("status"),
  fed: z.boolean(),
  since: z.string().nullable().describe("ISO 8601: when the stream was last (dis)connected"),
});

/** Codes of WsError. */
export const WS_ERROR_CODES = ["forbidden", "invalid_message", "too_many_topics", "unavailable"] as const;

/** Server -> client: a refused subscription or message (`forbidden` for a topic without its permission). */
export const WsError = z.object({
  type: z.literal("error"),
  topic: z.string().optional(),
  code: z.enum(WS_ERROR_CODES),
  message: z.string(),
});

/** Every message the server may send. */
export const WsServerMessage = z
  .discriminatedUnion("type", [WsSubscribed, WsEvent, WsGap, WsStatus, WsError])
  .meta({ id: "WsServerMessage" });
export type WsServerMessage = z.infer<typeof WsServerMessage>;

/** `data` of a live-topic event. */
export const LivePush = FeedEvent;
export type LivePush = FeedEvent;

/** `data` of a topology-topic event: the topology changed (the TopologyChanged event); fetch it again. */
export const TopologyPush = z
  .object({ at: z.string(), event: FeedEvent.nullable() })
  .meta({ id: "TopologyPush" });
export type TopologyPush = z.infer<typeof TopologyPush>;

/** `data` of a matrix-topic event: the cells of one protocol whose tier or figures changed since the last push. */
export const MatrixPush = z
  .object({ protocol: FleetProtocol, generatedAt: z.string(), cells: z.array(MatrixCell) })
  .meta({ id: "MatrixPush" });
export type MatrixPush = z.infer<typeof MatrixPush>;

export const openSocket = route({
  name: "openSocket",
  method: "GET",
  path: "/ws",
  tag: "events",
  summary: "The one multiplexed WebSocket per tab (messages: WsClientMessage in, WsServerMessage out)",
  description:
    "Topics are gated per subscription: live needs `events:read`; topology and matrix need a telemetry reader " +
    "(a built-in role, or a custom role granting `promql:query`: `events:read` alone is not enough); run:{id} " +
    "needs `runs:read`. 403 when the Origin host is not the request host (an absent Origin is allowed); 400 " +
    "for a GET without `Upgrade: websocket`; 503 when the console store cannot authenticate the caller. A " +
    "socket over websocket.maxConnections, maxConnectionsPerAddress or maxConnectionsPerSubject (not counted " +
    "for the anonymous caller) is accepted and closed at once with 1013. Client messages over 4096 bytes close " +
    "the socket with 1009.",
  access: "caller",
  spec: true,
  responses: { 101: null, ...errors(400, 401, 403, 503) },
});
