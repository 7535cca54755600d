import type * as grpc from "@grpc/grpc-js";
import * as proto from "./generated/svc.ts";
import {
  protoNamedDefinition,
  type ServiceClientMethods,
  type ServiceHandlers,
  serviceClientFactory,
} from "./grpc.ts";

/** svc.v1.ExternalTarget */
export type ExternalTargetMessage = proto.ExternalTarget;
/** svc.v1.ExternalCheckSpec (longs as numbers); `target` is undefined when not sent. */
export type ExternalCheckSpecMessage = proto.ExternalCheckSpec;
export type ExternalCheckAssignment = proto.ExternalCheckAssignment;
export type WatchExternalChecksRequest = proto.WatchExternalChecksRequest;

const externalCheckService = protoNamedDefinition(proto.ExternalCheckServiceService);

/** Server-side handlers of svc.v1.ExternalCheckService. */
export interface ExternalCheckServiceHandlers
  extends grpc.UntypedServiceImplementation,
    ServiceHandlers<typeof externalCheckService> {}

/** Client stub of svc.v1.ExternalCheckService. */
export interface ExternalCheckServiceClient
  extends grpc.Client,
    ServiceClientMethods<typeof externalCheckService> {}

export function externalCheckServiceDefinition(): typeof externalCheckService {
  return externalCheckService;
}

/** A client for svc.v1.ExternalCheckService at host:port. */
export const createExternalCheckServiceClient = serviceClientFactory<ExternalCheckServiceClient>(
  externalCheckService,
  "svc.v1.ExternalCheckService",
);
