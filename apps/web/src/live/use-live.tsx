/** React access to the tab's LiveSocket: its connection state, and a topic subscription bound to a component. */
import { useEffect, useRef, useSyncExternalStore } from "react";
import { useApp } from "../context.tsx";
import type { LiveState, TopicSignal } from "./live-socket.ts";

/** The socket's connection state; re-renders on change. */
export function useLiveState(): LiveState {
  const { live } = useApp();
  return useSyncExternalStore(
    (fn) => live.onState(fn),
    () => live.state,
  );
}

/**
 * Subscribes to `topic` while the component is mounted and `enabled` holds; `onSignal` may change between renders
 * without resubscribing.
 */
export function useTopic(topic: string, enabled: boolean, onSignal: (s: TopicSignal) => void): void {
  const { live } = useApp();
  const handler = useRef(onSignal);
  handler.current = onSignal;
  useEffect(() => {
    if (!enabled) return;
    return live.subscribe(topic, (s) => handler.current(s));
  }, [live, topic, enabled]);
}
