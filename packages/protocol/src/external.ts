import type * as proto from "./generated/svc.ts";

/** svc.v1.ExternalTarget */
export type ExternalTargetMessage = proto.ExternalTarget;
/** svc.v1.ExternalCheckSpec (longs as numbers); `target` is undefined when not sent. */
export type ExternalCheckSpecMessage = proto.ExternalCheckSpec;
export type ExternalCheckAssignment = proto.ExternalCheckAssignment;
export type WatchExternalChecksRequest = proto.WatchExternalChecksRequest;
