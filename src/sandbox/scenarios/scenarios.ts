// What a sandbox keeps for its scenarios (docs/scenarios.md): the fault table, and the timers
// that scenarios run on (a slow answer, a held connection, a payment result that is unknown for
// a while), so that closing the sandbox stops them all and a reset clears what a reset clears.
import { FaultTable } from "../faults/table.js";

export class Scenarios {
  readonly faults = new FaultTable();
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

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

  /** A state reset: the faults go (requests already held or delayed finish as they were told). */
  reset(): void {
    this.faults.clear();
  }

  /** The sandbox stops: nothing scheduled runs any more. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
