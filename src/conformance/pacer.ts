// Spaces the checker's requests (--rate-limit N: at most N a second), so that it is safe to
// point at a shared staging server. (The sandbox's createRequestPacer is the other side: a
// server refusing an app's requests beyond its limit.)
export interface RequestPacer {
  /** Resolves when the next request may start. */
  acquire(): Promise<void>;
}

export function createRequestPacer(requestsPerSecond: number | undefined, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): RequestPacer {
  if (!requestsPerSecond || requestsPerSecond <= 0 || !Number.isFinite(requestsPerSecond)) return { acquire: async () => {} };
  const interval = 1000 / requestsPerSecond;
  let nextSlot = 0;
  return {
    async acquire() {
      const now = Date.now();
      const slot = Math.max(now, nextSlot);
      nextSlot = slot + interval;
      if (slot > now) await sleep(slot - now);
    },
  };
}
