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

