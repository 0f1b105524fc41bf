// The kit's callback sender against a real receiver on 127.0.0.1, on an injected clock: each
// attempt signed afresh with the app's first secret (checked here with node:crypto's HMAC, not
// the package's signing code), the same event id and bytes every time, any 2xx within the
// timeout acknowledges and nothing follows it, everything else is retried on the schedule and
// given up after the last; deliveries saved in a pluggable outbox resume after a restart.
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { parseJsonLossless } from "../../src/json/index.js";
import {
  CallbackPayloadError,
  createCallbackSender,
  createMemoryCallbackOutbox,
  DEFAULT_CALLBACK_SCHEDULE_MS,
  stringifyExactJson,
  type CallbackDelivery,
  type CallbackOutbox,
  type CallbackSenderOptions,
  type LogDetails,
} from "../../src/server/index.js";
import { eventually, startReceiver, type Receiver } from "../support/sandbox.js";

const APP_KEY = "cb-app";
const START = Date.UTC(2026, 10, 22, 2, 15, 30);
const PAYMENT = {
  type: "payment.succeeded" as const,
  appKey: APP_KEY,
  data: { tradeNo: "2026112210153000001", outTradeNo: "M-1", merchantId: 9007199254740993n, totalAmount: 4250, tradeStatus: "SUCCESS" as const, payTime: "2026-11-22T10:17:02+08:00", attach: '{"cart":"c-1"}' },
};

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanups.push(() => r.close());
  return r;
}

function setup(patch: Partial<CallbackSenderOptions> = {}) {
  let now = START;
  let secrets = ["primary-secret", "old-secret"];
  const logged: Array<{ level: string; message: string; details?: LogDetails }> = [];
  const log = (level: string) => (message: string, details?: LogDetails) => void logged.push({ level, message, ...(details && { details }) });
  const sender = createCallbackSender({
    apps: (appKey) => (appKey === APP_KEY ? { appSecrets: secrets } : undefined),
    scheduleMs: [60_000, 120_000],
    now: () => now,
    // Loopback http receivers (the default is https only).
    checkTarget: () => undefined,
    logger: { error: log("error"), warn: log("warn"), info: log("info"), debug: log("debug") },
    ...patch,
  });
  cleanups.push(() => sender.close());
  return {
    sender,
    logged,
    advance(ms: number) {
      now += ms;
      sender.deliverDue();
    },
    rotate(next: string[]) {
      secrets = next;
    },
  };
}

/** X-Sign recomputed with node:crypto over appKey + timestamp + nonce + the raw body. */
function signedWith(headers: Record<string, string | string[] | undefined>, body: string, secret: string): boolean {
  const expected = createHmac("sha256", secret).update(`${headers["x-app-key"]}${headers["x-timestamp"]}${headers["x-nonce"]}${body}`, "utf8").digest("base64");
  return headers["x-sign"] === expected;
}

describe("the callback sender", () => {
  it("retries a refused delivery with the same event id and bytes, each attempt freshly signed, and stops at the acknowledgement", async () => {
    const r = await receiver();
    r.script.push({ status: 500 }, { status: 302, location: "https://elsewhere.example/" }, { status: 204 });
    const { sender, advance } = setup({ scheduleMs: [60_000, 60_000, 60_000] });
    const delivery = await sender.send({ ...PAYMENT, targetUrl: r.url });
    // Each answer recorded (and the next attempt scheduled) before the clock moves on.
    await eventually(() => delivery.attempts.length === 1);
    advance(60_000);
    await eventually(() => delivery.attempts.length === 2);
    advance(60_000);
    await eventually(() => delivery.status === "delivered");
    advance(60_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.received).toHaveLength(3);

    const bodies = new Set(r.received.map((c) => c.body));
    expect(bodies.size).toBe(1);
    const payload = parseJsonLossless(r.received[0]!.body) as { id: string; type: string; createTime: string; data: { merchantId: bigint } };
    expect(payload).toMatchObject({ id: delivery.eventId, type: "payment.succeeded", createTime: "2026-11-22T02:15:30Z", data: { merchantId: 9007199254740993n } });
    expect(r.received[0]!.body).toContain('"merchantId":9007199254740993');
    expect(new Set(r.received.map((c) => c.headers["x-nonce"])).size).toBe(3);
    for (const callback of r.received) expect(signedWith(callback.headers, callback.body, "primary-secret")).toBe(true);
    expect(delivery.attempts.map((a) => [a.httpStatus, a.acknowledged, a.error])).toEqual([
      [500, false, "HTTP 500"],
      [302, false, "redirect (HTTP 302) is not an acknowledgement"],
      [204, true, null],
    ]);
    expect(delivery.attempts[0]!.responseBody).toBe("fail");
    expect(delivery.attempts[0]!.headers["X-Sign"]).toBe(r.received[0]!.headers["x-sign"]);
  });

  it("counts an answer after the timeout as a failure, and gives up after the last retry, logged", async () => {
    const r = await receiver();
    r.script.push("hang", { status: 503 }, { status: 503 });
    const { sender, advance, logged } = setup({ timeoutMs: 150 });
    const delivery = await sender.send({ ...PAYMENT, targetUrl: r.url });
    await eventually(() => delivery.attempts.length === 1);
    expect(delivery.attempts[0]!.error).toBe("no answer within 150 ms");
    expect(delivery.nextAttemptTime).toBe(START + 60_000);
    advance(60_000);
    await eventually(() => delivery.attempts.length === 2);
    advance(120_000);
    await eventually(() => delivery.status === "failed");
    expect(delivery.failureReason).toBe("not acknowledged after 3 attempts");
    expect(logged).toContainEqual(expect.objectContaining({ level: "warn", message: "Callback given up: marked failed.", details: expect.objectContaining({ eventId: delivery.eventId, attempts: 3 }) }));
    expect(logged.filter((entry) => entry.level === "debug" && entry.message === "Callback attempt.")).toHaveLength(3);
  });

  it("signs every attempt with the app's first secret at that moment (a rotation applies to retries)", async () => {
    const r = await receiver();
    r.script.push({ status: 500 });
    const { sender, advance, rotate } = setup();
    const delivery = await sender.send({ ...PAYMENT, targetUrl: r.url });
    await eventually(() => delivery.attempts.length === 1);
    rotate(["rotated-secret", "primary-secret"]);
    advance(60_000);
    await r.waitFor(2);
    expect(signedWith(r.received[0]!.headers, r.received[0]!.body, "primary-secret")).toBe(true);
    expect(signedWith(r.received[1]!.headers, r.received[1]!.body, "rotated-secret")).toBe(true);
  });

  it("survives a restart: a delivery saved in the outbox is resumed by a new sender, same event id and bytes", async () => {
    // An outbox that keeps only JSON text, as a database table would: nothing shared but the text.
    const rows = new Map<string, string>();
    const read = (text: string) => parseJsonLossless(text) as CallbackDelivery;
    const outbox: CallbackOutbox = {
      save: async (delivery) => void rows.set(delivery.eventId, stringifyExactJson(delivery)),
      get: async (eventId) => (rows.has(eventId) ? read(rows.get(eventId)!) : undefined),
      pending: async () => [...rows.values()].map(read).filter((delivery) => delivery.status === "pending"),
    };
    const r = await receiver();
    r.script.push({ status: 500 });
    const first = setup({ outbox });
    const sent = await first.sender.send({ ...PAYMENT, targetUrl: r.url });
    await eventually(() => read(rows.get(sent.eventId)!).attempts.length === 1);
    first.sender.close(); // the process stops; the retry was due a minute later

    const second = setup({ outbox });
    second.advance(60_000);
    expect(await second.sender.resume()).toBe(1);
    second.sender.deliverDue();
    await r.waitFor(2);
    expect(r.received[1]!.body).toBe(r.received[0]!.body);
    await eventually(() => read(rows.get(sent.eventId)!).status === "delivered");
    expect(read(rows.get(sent.eventId)!).attempts.map((a) => a.httpStatus)).toEqual([500, 200]);
    expect(second.logged).toContainEqual(expect.objectContaining({ level: "info", message: "Callback deliveries resumed from the outbox." }));
  });

  it("still delivers when the outbox fails to save, and logs it", async () => {
    const r = await receiver();
    const { sender, logged } = setup({
      outbox: {
        save: () => {
          throw new Error("database unavailable");
        },
        get: () => undefined,
        pending: () => [],
      },
    });
    const delivery = await sender.send({ ...PAYMENT, targetUrl: r.url });
    await eventually(() => delivery.status === "delivered");
    expect(logged).toContainEqual(expect.objectContaining({ level: "error", message: expect.stringMatching(/outbox could not save a delivery/), details: expect.objectContaining({ error: expect.any(Error) }) }));
  });

  it("resends a delivered event by hand, marked manual", async () => {
    const r = await receiver();
    const outbox = createMemoryCallbackOutbox();
    const { sender } = setup({ outbox });
    const delivery = await sender.send({ ...PAYMENT, targetUrl: r.url });
    await eventually(() => delivery.status === "delivered");
    expect(await sender.resend(delivery.eventId)).toEqual({ ok: true });
    await r.waitFor(2);
    await eventually(() => delivery.attempts.length === 2);
    expect(delivery.attempts.map((a) => a.trigger)).toEqual(["scheduled", "manual"]);
    expect(await sender.resend("evt_nosuchevent0000")).toEqual({ ok: false, reason: "no callback event evt_nosuchevent0000" });
    expect(outbox.list()).toEqual([delivery]);
  });

  it("refuses a payload that does not match its webhook, before anything is recorded", () => {
    const { sender } = setup();
    expect(() => sender.prepare({ ...PAYMENT, targetUrl: "https://app.example/notify", data: { ...PAYMENT.data, tradeNo: "not digits" } })).toThrow(CallbackPayloadError);
    expect(() => sender.prepare({ ...PAYMENT, targetUrl: "https://app.example/notify", data: { ...PAYMENT.data, tradeNo: "not digits" } })).toThrow(/webhook schema.*tradeNo/);
  });

  it("marks an event failed at once when there is no target or no secret", async () => {
    const { sender } = setup();
    expect(await sender.send({ ...PAYMENT, targetUrl: null })).toMatchObject({ status: "failed", failureReason: "the app has no callbackUrl", attempts: [] });
    expect(await sender.send({ ...PAYMENT, appKey: "unknown-app", targetUrl: "https://app.example/notify" })).toMatchObject({ status: "failed", failureReason: "the app has no secret to sign with" });
  });

  it("contacts only https:// targets unless told otherwise (the contract's notifyUrl rule)", async () => {
    const r = await receiver();
    const { sender } = setup({ checkTarget: undefined });
    const delivery = await sender.send({ ...PAYMENT, targetUrl: r.url });
    await eventually(() => delivery.attempts.length === 1);
    expect(delivery.attempts[0]!.error).toMatch(/^refused: only https:\/\/ targets are contacted/);
    expect(r.received).toHaveLength(0);
  });

  it("uses the contract's schedule by default: 15 retries over about 24 h", () => {
    expect(DEFAULT_CALLBACK_SCHEDULE_MS).toHaveLength(15);
    const hours = DEFAULT_CALLBACK_SCHEDULE_MS.reduce((sum, ms) => sum + ms, 0) / 3_600_000;
    expect(hours).toBeGreaterThan(24);
    expect(hours).toBeLessThan(25);
  });
});
