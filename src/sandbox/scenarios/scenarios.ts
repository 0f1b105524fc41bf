// What a sandbox keeps for its scenarios (docs/scenarios.md): the faults (kept with the
// records, faults/store.ts), the callback redeliveries (this instance's), and the timers that
// scenarios run on (a slow answer, a held connection, a payment result that is unknown for a
// while, a late redelivery), so that closing the sandbox stops them all and a reset clears what
// a reset clears.
import type { FaultStore } from "../faults/store.js";
import { Redeliveries, type CallbackTransport } from "./redeliveries.js";

const DEFAULT_TRANSPORT: CallbackTransport = { fetch: (input, init) => fetch(input, init), timeoutMs: 5000, checkTarget: async () => undefined };

export class Scenarios {
  readonly redeliveries: Redeliveries;
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  /** `transport`: how redeliveries are sent, as the sandbox sends callbacks (its fetch, timeout and target policy). */
  constructor(
    readonly faults: FaultStore,
    transport: CallbackTransport = DEFAULT_TRANSPORT,
  ) {
    this.redeliveries = new Redeliveries(transport, (ms, task) => this.later(ms, task));
  }

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

  /** A state reset, of one app or of all: its faults and redeliveries go (requests already held or delayed finish as they were told). */
  async reset(appKey?: string): Promise<void> {
    await this.faults.clear(appKey);
    this.redeliveries.reset(appKey);
  }

  /** The sandbox stops: nothing scheduled runs any more. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
