// Whether this instance can serve: its store answers (a database reached) and its nonce store
// answers (memory, PostgreSQL or Redis). GET /sandbox/health answers it for a load balancer:
// 200 when both do, 503 when one does not (routes/health.ts).
import type { SandboxContext } from "./context.js";

export type ComponentStatus = "ok" | "unavailable";

export interface ComponentHealth {
  kind: string;
  status: ComponentStatus;
  /** How long the check took. */
  latencyMs: number;
  /** Why it is unavailable (no password or secret in it); null when it answers. */
  problem: string | null;
}

export interface HealthReport {
  status: ComponentStatus;
  store: ComponentHealth;
  nonceStore: ComponentHealth;
}

/** Longer than any app key (at most 128 characters), so the probe's nonces are no app's. */
const PROBE_APP_KEY = `mop-health-probe:${"-".repeat(128)}`;
let probes = 0;

async function timed(kind: string, check: () => Promise<string | null>): Promise<ComponentHealth> {
  const started = performance.now();
  let problem: string | null;
  try {
    problem = await check();
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  return { kind, status: problem === null ? "ok" : "unavailable", latencyMs: Math.round(performance.now() - started), problem };
}

export async function healthReport(ctx: SandboxContext): Promise<HealthReport> {
  const [store, nonceStore] = await Promise.all([
    timed(ctx.records.kind, async () => {
      await ctx.opened;
      await ctx.records.health();
      return null;
    }),
    // A nonce recorded for a second under a key no app has: the same path a signed request takes.
    timed(ctx.nonceStoreKind ?? "custom", async () => {
      const now = Date.now();
      const use = await ctx.nonceStore.useOnce(PROBE_APP_KEY, `probe-${process.pid}-${(probes += 1)}-${now}`, now + 1000, now);
      return use === "unavailable" ? "the nonce store cannot be reached" : null;
    }),
  ]);
  return { status: store.status === "ok" && nonceStore.status === "ok" ? "ok" : "unavailable", store, nonceStore };
}
