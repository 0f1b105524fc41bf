// Transactions of one app run one after the other in this process (the memory store's whole
// guarantee; the PostgreSQL store's queue before it asks the database for the app's lock, so
// a burst on one app waits here instead of holding every pooled connection).
/** One lock per app: transactions of an app run one after the other, others' at the same time. */
export function createAppLocks() {
  const tails = new Map<string, Promise<void>>();
  return async function withLock<T>(appKey: string, work: () => Promise<T>): Promise<T> {
    const previous = tails.get(appKey) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    tails.set(appKey, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (tails.get(appKey) === tail) tails.delete(appKey);
    }
  };
}


/**
 * At most `limit` at once per app: the PostgreSQL store lets a few of an app's transactions
 * wait on the database's lock (each with its transaction already begun, so the next one starts
 * the moment the lock is free), and no more, so a burst on one app leaves connections for others.
 */
export function createAppGates(limit: number) {
  const gates = new Map<string, { running: number; waiting: (() => void)[] }>();
  return async function withGate<T>(appKey: string, work: () => Promise<T>): Promise<T> {
    let gate = gates.get(appKey);
    if (!gate) {
      gate = { running: 0, waiting: [] };
      gates.set(appKey, gate);
    }
    const current = gate;
    if (current.running >= limit) await new Promise<void>((resolve) => current.waiting.push(resolve));
    current.running += 1;
    try {
      return await work();
    } finally {
      current.running -= 1;
      const next = current.waiting.shift();
      if (next) next();
      else if (current.running === 0) gates.delete(appKey);
    }
  };
}
