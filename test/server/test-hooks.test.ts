// The kit's test hooks router: the control spec's operations a server under test offers to
// `mop check`, validated and enveloped like the sandbox's control API, found by the checker's
// probe, refused with NODE_ENV=production, and answering 100015 for the hooks left out.
import express from "express";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ControlApi } from "../../src/conformance/control.js";
import { ConformanceHttp } from "../../src/conformance/http.js";
import { createRequestPacer } from "../../src/conformance/pacer.js";
import { createTestHooksRouter, ServerConfigError, signedError, type ControlHandlers, type ServerLogger } from "../../src/server/index.js";

const NOW = Date.UTC(2026, 10, 22, 2, 15, 30);
const logged: string[] = [];
const logger: ServerLogger = { error: (message) => void logged.push(message) };
const trade = {
  tradeNo: "2026112210153000001",
  outTradeNo: "ORDER-9007199254740993",
  merchantId: 10001n,
  orderId: 9007199254740993n,
  tradeStatus: "SUCCESS" as const,
  totalAmount: 4250,
  subject: "Tea",
  createTime: "2026-11-22T10:15:30+08:00",
  expireTime: "2026-11-22T10:45:30+08:00",
  payTime: "2026-11-22T10:17:02+08:00",
  closeReason: null,
  attach: null,
};
const payTrade: ControlHandlers["payTrade"] = ({ path }) => {
  if (path.tradeNo === "404") throw signedError("TRADE_NOT_FOUND", `tradeNo ${path.tradeNo}: no such trade.`);
  if (path.tradeNo === "1") return { trade: { ...trade, totalAmount: "lots" }, eventId: "evt_x" } as never; // a bug
  return { trade: { ...trade, tradeNo: path.tradeNo }, eventId: "evt_abcdefgh12345678" };
};

let server: Server;
let base = "";
beforeAll(async () => {
  const app = express();
  app.use("/sandbox", createTestHooksRouter({ hooks: { payTrade }, now: () => NOW, logger }));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/sandbox`;
});
afterAll(() => void server.close());
afterEach(() => vi.unstubAllEnvs());

const post = (path: string, headers: Record<string, string> = { "Content-Type": "application/json" }) => fetch(`${base}${path}`, { method: "POST", headers });

describe("test hooks", () => {
  it("answer getClock from the server's clock by default, in the control API's envelope", async () => {
    const response = await fetch(`${base}/clock`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ code: 0, msg: "success", data: { now: "2026-11-22T02:15:30Z", epochMs: NOW, offsetSeconds: 0 } });
  });

  it("pay a trade through the hook, exact ids, and refuse what the hook refuses", async () => {
    const paid = await post("/trades/2026112210153000002/pay");
    expect(paid.status).toBe(200);
    const text = await paid.text();
    expect(text).toContain('"orderId":9007199254740993');
    expect(JSON.parse(text)).toMatchObject({ code: 0, data: { trade: { tradeNo: "2026112210153000002", tradeStatus: "SUCCESS" }, eventId: "evt_abcdefgh12345678" } });
    const missing = await post("/trades/404/pay");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 400001 });
  });

  it("validate the hook's answer against the control spec (a bug is 100099, logged)", async () => {
    const before = logged.length;
    const broken = await post("/trades/1/pay");
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({ code: 100099 });
    expect(logged.length).toBeGreaterThan(before);
  });

  it("answer 100015 for a control operation left out, and refuse a state change without JSON", async () => {
    const reset = await post("/reset");
    expect(reset.status).toBe(404);
    expect(await reset.json()).toMatchObject({ code: 100015, msg: expect.stringMatching(/does not implement resetState/) });
    const form = await post("/trades/2026112210153000002/pay", { "Content-Type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect(await form.json()).toMatchObject({ code: 100014 });
  });

  it("are found by mop check's probe, which pays through them and skips an operation they leave out", async () => {
    const control = await ControlApi.probe(new ConformanceHttp({ timeoutMs: 5000, pacer: createRequestPacer(0) }), base);
    expect(control).toBeDefined();
    expect(await control!.payTrade("2026112210153000003")).toMatchObject({ trade: { tradeNo: "2026112210153000003" } });
    await expect(control!.call("resetState")).rejects.toThrow(/control API does not implement resetState \(answered 100015\)/);
  });

  it("are refused with NODE_ENV=production unless allowed, and need payTrade", () => {
    vi.stubEnv("NODE_ENV", "production");
    expect(() => createTestHooksRouter({ hooks: { payTrade } })).toThrow(ServerConfigError);
    expect(() => createTestHooksRouter({ hooks: { payTrade } })).toThrow(/refuses to run with NODE_ENV=production/);
    expect(() => createTestHooksRouter({ hooks: { payTrade }, allowInProduction: true })).not.toThrow();
    vi.unstubAllEnvs();
    expect(() => createTestHooksRouter({ hooks: {} as never })).toThrow(/needs hooks\.payTrade/);
  });
});
