/**
 * Leadership as the controller sees it. Leader-only routes (spec §4.2), the `controller_leader` gauge and
 * leader-only work read isLeader(); start() begins campaigning, stop() ends it (releasing leadership if held).
 */
export interface LeaderElector {
  /** true while this replica may act as the leader */
  isLeader(): boolean;
  start(): void;
  stop(): Promise<void>;
}

/**
 * The elector with `controller.leaderElection: false` or outside Kubernetes: this replica is always the leader,
 * from construction on (also before start() and after stop()).
 */
export class AlwaysLeader implements LeaderElector {
  isLeader(): boolean {
    return true;
  }

  start(): void {}

  async stop(): Promise<void> {}
}
