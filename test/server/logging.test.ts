// The kit's logger: four levels, a pino logger adapted (passed as is or through
// pinoServerLogger) with the details and the stack it would otherwise drop, a logger of the
// first release ({ error }) still fitting, and a nonce store that fails closed reaching the log:
// a Redis nonce store with no Redis behind it, and a store that comes back.
import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSignedRouter, pinoServerLogger, serverLogger, type LogDetails, type ServerLogger, type SignedHandlers } from "../../src/server/index.js";
import { createRedisNonceStore, signRequestHeaders, type NonceStore, type NonceUse } from "../../src/signing/index.js";

const APP_KEY = "log-app";
const SECRET = "log-secret";

/** A real pino logger writing its JSON lines into an array. */
function capturedPino(): { logger: pino.Logger; lines: () => Array<Record<string, unknown>> } {
  const written: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written.push(chunk.toString("utf8"));
      done();
    },
  });
  const logger = pino({ level: "debug" }, stream);
  return { logger, lines: () => written.join("").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("a pino logger", () => {
  it("through pinoServerLogger keeps the details, the error's stack and cause, and exact bigints", () => {
    const { logger, lines } = capturedPino();
    const cause = new Error("ECONNREFUSED 127.0.0.1:6379");
    pinoServerLogger(logger).error("Internal error while answering a request.", { error: new Error("boom", { cause }), orderId: 9007199254740993n, path: "/open-api/v1/orders" });
    const [line] = lines();
    expect(line).toMatchObject({ level: 50, msg: "Internal error while answering a request.", path: "/open-api/v1/orders", error: { type: "Error", message: "boom", cause: { message: "ECONNREFUSED 127.0.0.1:6379" } } });
    expect(String((line!.error as { stack: string }).stack)).toMatch(/^Error: boom\n\s+at /);
    expect(JSON.stringify(line)).not.toContain('"error":{}');
  });

  it("passed as is is recognised and adapted (a plain call would read the details as format arguments)", () => {
    const { logger, lines } = capturedPino();
    serverLogger(logger).warn("The nonce store is full.", { appKey: "a" });
    expect(lines()).toEqual([expect.objectContaining({ level: 40, msg: "The nonce store is full.", appKey: "a" })]);
    // What the kit did before: pino's own error(message, details) loses the details.
    logger.error("direct call", { appKey: "lost" } as never);
    expect(lines()[1]).not.toHaveProperty("appKey");
  });

  it("has every level", () => {
    const { logger, lines } = capturedPino();
    const levelled = pinoServerLogger(logger);
    levelled.debug("d");
    levelled.info("i");
    levelled.warn("w");
    levelled.error("e");
    expect(lines().map((line) => line.level)).toEqual([20, 30, 40, 50]);
  });
});

describe("a logger of the kit's first release", () => {
  it("({ error } only) still fits: the other levels do nothing, and a logger that throws breaks nothing", () => {
    const errors: string[] = [];
    const logger = serverLogger({ error: (message) => void errors.push(message) });
    logger.debug("ignored");
    logger.warn("ignored");
    logger.error("kept");
    expect(errors).toEqual(["kept"]);
    expect(() =>
      serverLogger({
        error: () => {
          throw new Error("disk full");
        },
      }).error("x"),
    ).not.toThrow();
  });
});

describe("a nonce store that fails closed reaches the log", () => {
  const records: Array<{ level: string; message: string; details?: LogDetails }> = [];
  const logger: ServerLogger = {
    error: (message, details) => void records.push({ level: "error", message, ...(details && { details }) }),
    warn: (message, details) => void records.push({ level: "warn", message, ...(details && { details }) }),
    info: (message, details) => void records.push({ level: "info", message, ...(details && { details }) }),
  };
  const handlers: Partial<SignedHandlers> = { listMerchants: ({ query }) => ({ list: [], total: 0, page: query.pageNo, size: query.pageSize }) };
  const servers: Server[] = [];
  let now = Date.now();
  let flaky: NonceUse = "unavailable";
  const flakyStore: NonceStore = { useOnce: () => flaky };
  let redis: Awaited<ReturnType<typeof createRedisNonceStore>>;
  let redisBase = "";
  let flakyBase = "";

  async function serve(nonceStore: NonceStore): Promise<string> {
    const app = express();
    app.use("/open-api", createSignedRouter({ handlers, partial: true, apps: (key) => (key === APP_KEY ? { appSecrets: [SECRET] } : undefined), nonceStore, logger, now: () => now }));
    const server = app.listen(0, "127.0.0.1");
    servers.push(server);
    await new Promise((resolve) => server.once("listening", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/open-api/v1`;
  }

  const listMerchants = (base: string) => fetch(`${base}/merchants`, { headers: signRequestHeaders({ appKey: APP_KEY, appSecret: SECRET, body: "", now: () => now }) });

  beforeAll(async () => {
    // Nothing listens on port 9: the store cannot reach Redis, and fails closed.
    redis = await createRedisNonceStore({ url: "redis://127.0.0.1:9", commandTimeoutMs: 50 });
    redisBase = await serve(redis);
    flakyBase = await serve(flakyStore);
  });
  afterAll(async () => {
    await redis.close();
    for (const server of servers) server.close();
  });

  it("a Redis nonce store with no Redis: the 429 is answered and the operator reads why", async () => {
    const response = await listMerchants(redisBase);
    expect(response.status).toBe(429);
    expect(((await response.json()) as { code: number }).code).toBe(100006);
    expect(records).toContainEqual(expect.objectContaining({ level: "error", message: expect.stringMatching(/^The nonce store is unavailable: signed requests are refused with 100006/), details: expect.objectContaining({ appKey: APP_KEY, refusedSinceFirst: 1 }) }));
  });

  it("an outage is logged once per interval with a count, and its end is logged", async () => {
    records.length = 0;
    for (let i = 0; i < 5; i++) expect((await listMerchants(flakyBase)).status).toBe(429);
    expect(records.filter((r) => r.level === "error")).toHaveLength(1);
    now += 11_000;
    expect((await listMerchants(flakyBase)).status).toBe(429);
    expect(records.filter((r) => r.level === "error").map((r) => r.details?.refusedSinceFirst)).toEqual([1, 6]);
    flaky = "fresh";
    expect((await listMerchants(flakyBase)).status).toBe(200);
    expect(records.at(-1)).toMatchObject({ level: "info", message: "The nonce store answers again; signed requests are accepted.", details: { refusedWhileUnavailable: 6 } });
  });

  it("a full store is a warning", async () => {
    records.length = 0;
    flaky = "full";
    expect((await listMerchants(flakyBase)).status).toBe(429);
    expect(records).toEqual([expect.objectContaining({ level: "warn", message: expect.stringMatching(/^The nonce store is full for an app/) })]);
  });
});
