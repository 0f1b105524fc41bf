// Spaces requests so that the checker is safe to point at a shared staging server.
export interface RateLimiter {
  /** Resolves when the next request may start. */
  acquire(): Promise<void>;
}

export function createRateLimiter(requestsPerSecond: number | undefined, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): RateLimiter {
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
