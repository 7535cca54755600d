export { type EventObject, eventObject } from "./event-route.ts";
export { FakeKubeApi, type FakeKubeApiCounters } from "./fake-kube-api.ts";
export { type KubeObject, type KubeStatus, kubeStatus, nodeObject, type WatchEvent } from "./kube-objects.ts";
export { podObject } from "./pod-route.ts";
export { API_SERVER_AUDIENCE, type TokenSpec } from "./token-review-route.ts";
