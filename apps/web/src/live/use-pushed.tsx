/**
 * Pushed, not polled (spec §6.2): a page subscribes to the topics that announce changes of what it shows
 * (`matrix`, `topology`) and refetches its query when one arrives. While the socket is up, the replica is fed and
 * every subscription holds, the page does not poll; otherwise (unfed, socket down, topic refused) it polls every
 * 15 s, and resumes live at once when the stream returns.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useApp } from "../context.tsx";
import { useLiveState } from "./use-live.tsx";

/** Polling period while not fed (spec §6.2). */
export const UNFED_POLL_MS = 15_000;

/** Subscribes to `topics` (when `enabled`) and refetches queries under `queryKey` on each push; true while fed. */
export function usePushed(
  topics: readonly string[],
  queryKey: readonly unknown[],
  enabled: boolean,
): boolean {
  const { live } = useApp();
  const queryClient = useQueryClient();
  const state = useLiveState();
  const [refused, setRefused] = useState(0);
  const key = useRef(queryKey);
  key.current = queryKey;
  const topicList = topics.join("\n");
  useEffect(() => {
    if (!enabled) return;
    const names = topicList.split("\n");
    const down = new Set<string>();
    const offs = names.map((topic) =>
      live.subscribe(topic, (s) => {
        if (s.kind === "event") void queryClient.invalidateQueries({ queryKey: [...key.current] });
        else if (s.kind === "error") down.add(topic);
        else if (s.kind === "subscribed") down.delete(topic);
        setRefused(down.size);
      }),
    );
    return () => {
      for (const off of offs) off();
      setRefused(0);
    };
  }, [live, queryClient, topicList, enabled]);
  return enabled && state.connected && state.fed === true && refused === 0;
}

/**
 * The notice of spec §6.2 degraded state 1 on a pushed page: this replica does not receive the controller's event
 * stream, so the page polls every 15 s. Gone as soon as the replica is fed again; never under the Time Machine.
 */
export function UnfedNotice(p: { enabled: boolean }) {
  const state = useLiveState();
  if (!p.enabled || state.fed !== false) return null;
  return (
    <div className="banner banner-warn" role="status" data-testid="unfed-notice">
      Live updates paused: this console is not receiving the controller's event stream; refreshing every{" "}
      {UNFED_POLL_MS / 1000} s.
    </div>
  );
}
