// What a sandbox keeps for its scenarios (docs/scenarios.md): the faults (kept with the
// records, faults/store.ts), and the timers that scenarios run on (a slow answer, a held connection, a payment result that is unknown for
// a while), so that closing the sandbox stops them all and a reset clears what a reset clears.
import type { FaultStore } from "../faults/store.js";

export class Scenarios {
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(readonly faults: FaultStore) {}

  /**
   * Runs `task` after `ms` unless the sandbox closes first; answers a cancel function. Unref'd,
   * like the callback timers: a pending scenario never keeps a process alive.
   */
  later(ms: number, task: () => void): () => void {
    if (this.closed) return () => {};
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      task();
    }, ms);
    timer.unref();
    this.timers.add(timer);
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  /** A state reset, of one app or of all: the faults go (requests already held or delayed finish as they were told). */
  reset(appKey?: string): Promise<void> {
    return this.faults.clear(appKey);
  }

  /** The sandbox stops: nothing scheduled runs any more. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
