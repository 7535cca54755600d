/**
 * The seam between the controller event stream (events/ingest) and the live fan-out (live/ hub, /ws): the ingester
 * hands every event it received to a FeedSink, and says when the stream connects and drops (spec §6.2 "unfed").
 */
import type { FeedEvent } from "@svc/contract";

/** Where ingested controller events go. */
export interface FeedSink {
  /** one event as received (and stored, when the console has a database) */
  event(event: FeedEvent): void;
  /** the controller stream connected (`fed` true) or dropped; `at` epoch ms */
  fed(fed: boolean, at: number): void;
  /** the controller reported `count` events missed on this console's subscription before the next one */
  missed(count: number): void;
}

/** A sink that drops everything (a console without live fan-out, tests of ingestion alone). */
export const nullFeedSink: FeedSink = {
  event() {},
  fed() {},
  missed() {},
};
