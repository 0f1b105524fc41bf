// Two sandboxes behind one address share replay protection through a real Redis: a request
// replayed to the other instance is refused, and while Redis is away every signed request is
// refused (fail closed) until it returns.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxCommand } from "../../src/cli/sandbox.js";
import { main } from "../../src/cli/main.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { createRedisNonceStore, type RedisNonceStore } from "../../src/signing/index.js";
import { redisServerMissing, startRedisServer, type RedisServer } from "../support/redis.js";
import { DEMO, startSandbox, type TestSandbox } from "../support/sandbox.js";

async function send(sandbox: TestSandbox, headers: Record<string, string>, body: string) {
  const response = await fetch(`${sandbox.url}/open-api/v1/customers/sync`, {
    method: "POST",
    headers: { ...headers, "Content-Type": "application/json" },
    body,
  });
  return { status: response.status, json: (await response.json()) as { code: number; msg: string } };
}

describe.skipIf(redisServerMissing)("a nonce store shared through Redis", () => {
  let redis: RedisServer;
  let stores: RedisNonceStore[];
  let first: TestSandbox;
  let second: TestSandbox;

  beforeAll(async () => {
    redis = await startRedisServer();
    stores = await Promise.all([0, 1].map(() => createRedisNonceStore({ url: redis.url, commandTimeoutMs: 200 })));
    await Promise.all(stores.map((store) => store.ready()));
    first = await startSandbox({ nonceStore: stores[0] });
    second = await startSandbox({ nonceStore: stores[1] });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await Promise.all((stores ?? []).map((store) => store.close()));
    await redis?.close();
  });

  const signed = (sandbox: TestSandbox, body: string) =>
    signRequestHeaders({ appKey: DEMO.appKey, appSecret: DEMO.appSecret, body, now: () => sandbox.sandbox.clock.now() });

  it("refuses on one instance a request already accepted by the other", async () => {
    const body = JSON.stringify({ openUserId: "shared-nonce-user-1" });
    const headers = signed(first, body);
    expect((await send(first, headers, body)).json.code).toBe(0);
    const replay = await send(second, headers, body);
    expect(replay.status).toBe(401);
    expect(replay.json.code).toBe(100005);
  });

  it("fails closed while Redis is down and serves again once it is back, replays still refused", async () => {
    const body = JSON.stringify({ openUserId: "shared-nonce-user-2" });
    const before = signed(first, body);
    expect((await send(first, before, body)).json.code).toBe(0);
    await redis.stop();
    const during = signed(second, body);
    for (const [sandbox, headers] of [[second, during], [first, before], [second, before]] as const) {
      const refused = await send(sandbox, headers, body);
      expect(refused.json.code).toBe(100006);
      expect(refused.status).toBe(429);
      expect(refused.json.msg).toMatch(/replay-protection store is unreachable/);
    }
    await redis.start();
    await expect.poll(async () => (await send(second, signed(second, body), body)).json.code, { timeout: 5000, interval: 50 }).toBe(0);
    expect((await send(second, before, body)).json.code).toBe(100005);
  });

  it("mop sandbox --nonce-store names an unreachable Redis and exits 1; a wrong scheme is a usage error", async () => {
    const out = { stdout: "", stderr: "" };
    const io = { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env: {} };
    expect(await sandboxCommand(["--nonce-store", "redis://:hunter2@127.0.0.1:1/0", "--port", "0"], io)).toBe(1);
    expect(out.stderr).toMatch(/did not answer/);
    expect(out.stderr).not.toContain("hunter2");
    out.stderr = "";
    expect(await main(["sandbox", "--nonce-store", "mysql://127.0.0.1"], io)).toBe(2);
    expect(out.stderr).toMatch(/--nonce-store must be/);
  });
});

describe.skipIf(redisServerMissing)("two sandboxes sharing a Redis that loses its data", () => {
  let redis: RedisServer;
  let stores: RedisNonceStore[];
  let first: TestSandbox;
  let second: TestSandbox;

  beforeAll(async () => {
    // No persistence: killed, it comes back empty.
    redis = await startRedisServer({ persistence: false });
    stores = await Promise.all([0, 1].map(() => createRedisNonceStore({ url: redis.url, commandTimeoutMs: 200, onWarning: () => undefined })));
    await Promise.all(stores.map((store) => store.ready()));
    first = await startSandbox({ nonceStore: stores[0] });
    second = await startSandbox({ nonceStore: stores[1] });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await Promise.all((stores ?? []).map((store) => store.close()));
    await redis?.close();
  });

  it("refuses the replays of three accepted requests after Redis is killed with SIGKILL and restarted", async () => {
    const accepted = [1, 2, 3].map((n) => {
      const body = JSON.stringify({ openUserId: `lost-data-user-${n}` });
      return { body, headers: signRequestHeaders({ appKey: DEMO.appKey, appSecret: DEMO.appSecret, body, now: () => first.sandbox.clock.now() }) };
    });
    for (const [i, { headers, body }] of accepted.entries()) expect((await send(i % 2 ? second : first, headers, body)).json.code).toBe(0);

    await redis.kill();
    await redis.start();
    // Time moves on for both sandboxes while Redis comes back.
    for (const sandbox of [first, second]) sandbox.baseClock.set(sandbox.baseClock.now() + 5_000);
    for (const sandbox of [first, second]) {
      await expect.poll(async () => {
        const body = JSON.stringify({ openUserId: "after-restart-user" });
        return (await send(sandbox, signRequestHeaders({ appKey: DEMO.appKey, appSecret: DEMO.appSecret, body, now: () => sandbox.sandbox.clock.now() }), body)).json.code;
      }, { timeout: 5000, interval: 50 }).toBe(0);
    }

    for (const [i, { headers, body }] of accepted.entries()) {
      const replay = await send(i % 2 ? first : second, headers, body);
      expect(replay.status).toBe(429);
      expect(replay.json.code).toBe(100006);
      expect(replay.json.msg).toMatch(/replay-protection store lost its memory after this request was signed/);
    }
  });
});
