// GET /sandbox/health: 200 with a report when the store and the nonce store answer, 503 with
// Retry-After (and the report) when one does not; never a secret. The PostgreSQL store's side is
// in team.test.ts (the database stopped and started again).
import { afterEach, describe, expect, it } from "vitest";
import type { NonceStore } from "../../src/signing/index.js";
import { startSandbox, type TestSandbox } from "../support/sandbox.js";

const started: TestSandbox[] = [];
afterEach(async () => {
  while (started.length > 0) await started.pop()!.close();
});

async function sandbox(options: Parameters<typeof startSandbox>[0] = {}) {
  const sb = await startSandbox(options);
  started.push(sb);
  return sb;
}

describe("GET /sandbox/health", () => {
  it("answers 200 and what answered, for the memory store", async () => {
    const sb = await sandbox();
    const answer = await sb.raw("/sandbox/health");
    expect(answer.status).toBe(200);
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(answer.json).toEqual({
      status: "ok",
      store: { kind: "memory", status: "ok", latencyMs: expect.any(Number), problem: null },
      nonceStore: { kind: "memory", status: "ok", latencyMs: expect.any(Number), problem: null },
    });
    expect(await sb.sandbox.health()).toMatchObject({ status: "ok" });
  });

  it("answers 503 with Retry-After when the nonce store does not answer, and signed requests are refused meanwhile", async () => {
    let down = true;
    const nonceStore: NonceStore = { useOnce: () => (down ? "unavailable" : "fresh") };
    const sb = await sandbox({ nonceStore, nonceStoreName: "redis" });
    const answer = await sb.raw("/sandbox/health");
    expect(answer.status).toBe(503);
    expect(answer.headers.get("retry-after")).toBe("1");
    expect(answer.json).toMatchObject({ status: "unavailable", store: { status: "ok" }, nonceStore: { kind: "redis", status: "unavailable", problem: "the nonce store cannot be reached" } });
    expect((await sb.signed({ path: "/stores" })).json.code).toBe(100006);
    down = false;
    expect((await sb.raw("/sandbox/health")).status).toBe(200);
    expect((await sb.signed({ path: "/stores" })).json.code).toBe(0);
  });

  it("is not part of the control API: no other method, and the dashboard's files need no store", async () => {
    const sb = await sandbox();
    expect((await sb.raw("/sandbox/health", { method: "POST", headers: { "Content-Type": "application/json" } })).json.code).toBe(100015);
    expect((await sb.raw("/sandbox/ui/dashboard.js")).status).toBe(200);
  });
});
