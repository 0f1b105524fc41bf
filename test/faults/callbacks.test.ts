// Callback delivery against receivers that fail: down (refused connection), slow past the
// acknowledgement timeout, answering a redirect, answering 500 and then recovering, and a flaky
// receiver under many events at once. The schedule is the platform's own (DESIGN item 8: 15 s,
// 15 s, 30 s, 3 m, ...), walked deterministically by advancing the sandbox clock through the
// control API: the base clock is fixed, so every attempt's time is exact. Every event must
// finally be delivered on schedule, none lost, and none sent again after its acknowledgement.
import { afterEach, describe, expect, it } from "vitest";
import { parseJsonLossless } from "../../src/json/index.js";
import { DEFAULT_CALLBACK_SCHEDULE_MS, type CallbackDeliveryRecord } from "../../src/sandbox/index.js";
import { createMemoryNonceStore, verifySignedRequest } from "../../src/signing/index.js";
import { DEMO, startSandbox, T0, type TestSandbox } from "../support/sandbox.js";
import { closedPort, startScriptedReceiver, until, type ScriptedReceiver } from "./support.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function sandbox(timeoutMs = 2000): Promise<TestSandbox> {
  // The default (24 h) schedule: its shortest real timer is 15 s, longer than any test here, so
  // every retry below is made by advancing the clock, never by a timer.
  const sb = await startSandbox({ allowInsecureNotify: true, callbackTimeoutMs: timeoutMs });
  cleanups.push(async () => {
    expect(sb.logs.errors).toEqual([]);
    await sb.close();
  });
  return sb;
}

async function receiver(port = 0): Promise<ScriptedReceiver> {
  const r = await startScriptedReceiver(port);
  cleanups.push(() => r.close());
  return r;
}

async function pay(sb: TestSandbox, notifyUrl: string): Promise<{ tradeNo: string; eventId: string }> {
  const { tradeNo } = await sb.createTrade({ notifyUrl });
  const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
  expect(paid.json?.code, paid.text).toBe(0);
  return { tradeNo, eventId: paid.json.data.eventId as string };
}

async function advance(sb: TestSandbox, seconds: number): Promise<void> {
  const answer = await sb.control("POST", "/clock/advance", { seconds });
  expect(answer.json?.code, answer.text).toBe(0);
}

function event(sb: TestSandbox, eventId: string): CallbackDeliveryRecord {
  // The memory store's callback log answers at once (it holds the sender's own objects).
  const found = sb.sandbox.state.callbackLog.get(eventId) as CallbackDeliveryRecord | undefined;
  if (!found) throw new Error(`no event ${eventId}`);
  return found;
}

/** Waits until the event has made `count` attempts (the attempt's I/O, not a schedule). */
function attempts(sb: TestSandbox, eventId: string, count: number, timeoutMs = 5000) {
  return until(() => event(sb, eventId).attempts.length >= count && event(sb, eventId).attempts, `${count} attempts of ${eventId}`, timeoutMs);
}

/** The times (ms after T0) at which attempts 1..n are due on the default schedule. */
function scheduleOffsets(n: number): number[] {
  const offsets = [0];
  for (let i = 0; i < n - 1; i++) offsets.push((offsets[i] as number) + (DEFAULT_CALLBACK_SCHEDULE_MS[i] as number));
  return offsets;
}

/** After acknowledgement nothing more goes out: not on the clock, not on a timer. */
async function expectNothingAfterAcknowledgement(sb: TestSandbox, eventId: string, r: ScriptedReceiver): Promise<void> {
  const made = event(sb, eventId).attempts.length;
  const delivered = r.deliveries.length;
  expect(event(sb, eventId)).toMatchObject({ status: "delivered", nextAttemptTime: null, failureReason: null });
  await advance(sb, 2 * 24 * 3600);
  // A round trip through the sandbox, so any attempt the advance started would have reached the receiver.
  await sb.control("GET", "/clock");
  await new Promise((resolve) => setImmediate(resolve));
  expect(event(sb, eventId).attempts).toHaveLength(made);
  expect(r.deliveries).toHaveLength(delivered);
}

describe("callbacks to a failing receiver", () => {
  it("a receiver that is down (connection refused) gets the event once it is back, on schedule", async () => {
    const sb = await sandbox();
    const port = await closedPort();
    const { eventId } = await pay(sb, `http://127.0.0.1:${port}/mop/notify`);

    await attempts(sb, eventId, 1);
    await advance(sb, 15);
    await attempts(sb, eventId, 2);
    const r = await receiver(port); // back up on the same address
    await advance(sb, 15);
    const log = await attempts(sb, eventId, 3);

    expect(log.map((a) => a.time - T0)).toEqual(scheduleOffsets(3));
    expect(log.map((a) => [a.httpStatus, a.acknowledged])).toEqual([[null, false], [null, false], [200, true]]);
    expect(log[0]!.error).toMatch(/ECONNREFUSED/);
    expect(log[1]!.error).toMatch(/ECONNREFUSED/);
    expect(r.deliveries).toHaveLength(1);
    expect((parseJsonLossless(r.deliveries[0]!.body) as { id: string }).id).toBe(eventId);
    await expectNothingAfterAcknowledgement(sb, eventId, r);
  });

  it("a receiver slower than the acknowledgement timeout is retried until it answers in time", async () => {
    const sb = await sandbox(150);
    const r = await receiver();
    r.script.push({ status: 200, delayMs: 400 }, { status: 200, delayMs: 400 });
    const { eventId } = await pay(sb, r.url);

    await attempts(sb, eventId, 1);
    await advance(sb, 15);
    await attempts(sb, eventId, 2);
    await advance(sb, 15);
    const log = await attempts(sb, eventId, 3);

    expect(log.map((a) => a.time - T0)).toEqual(scheduleOffsets(3));
    expect(log.map((a) => [a.error, a.acknowledged])).toEqual([["no answer within 150 ms", false], ["no answer within 150 ms", false], [null, true]]);
    // It saw the event three times: one body, one event id, a fresh signature each time.
    expect(r.deliveries).toHaveLength(3);
    expect(new Set(r.deliveries.map((d) => d.body)).size).toBe(1);
    expect(new Set(r.deliveries.map((d) => d.headers["x-nonce"])).size).toBe(3);
    const nonceStore = createMemoryNonceStore();
    for (const delivery of r.deliveries) {
      const verified = await verifySignedRequest({ headers: delivery.headers, body: delivery.body, secretsFor: () => [DEMO.appSecret], now: () => sb.sandbox.clock.now(), nonceStore });
      expect(verified.ok, JSON.stringify(verified)).toBe(true);
    }
    await expectNothingAfterAcknowledgement(sb, eventId, r);
  });

  it("a redirect is a failed attempt and is not followed", async () => {
    const sb = await sandbox();
    const r = await receiver();
    const elsewhere = await receiver();
    r.script.push({ status: 302, location: elsewhere.url }, { status: 307, location: elsewhere.url });
    const { eventId } = await pay(sb, r.url);

    await attempts(sb, eventId, 1);
    await advance(sb, 15);
    await attempts(sb, eventId, 2);
    await advance(sb, 15);
    const log = await attempts(sb, eventId, 3);

    expect(log.map((a) => a.time - T0)).toEqual(scheduleOffsets(3));
    expect(log.map((a) => [a.httpStatus, a.acknowledged])).toEqual([[302, false], [307, false], [200, true]]);
    expect(log[0]!.error).toMatch(/redirect/);
    expect(elsewhere.deliveries).toHaveLength(0);
    await expectNothingAfterAcknowledgement(sb, eventId, r);
  });

  it("a receiver answering 500 three times and then recovering gets the event at the fourth attempt, 60 s in", async () => {
    const sb = await sandbox();
    const r = await receiver();
    r.script.push({ status: 500 }, { status: 500 }, { status: 500 });
    const { eventId, tradeNo } = await pay(sb, r.url);

    await attempts(sb, eventId, 1);
    // Advancing by less than the next delay makes no attempt.
    await advance(sb, 14);
    await sb.control("GET", "/clock");
    expect(event(sb, eventId).attempts).toHaveLength(1);
    await advance(sb, 1);
    await attempts(sb, eventId, 2);
    await advance(sb, 15);
    await attempts(sb, eventId, 3);
    await advance(sb, 30);
    const log = await attempts(sb, eventId, 4);

    expect(log.map((a) => a.time - T0)).toEqual(scheduleOffsets(4));
    expect(scheduleOffsets(4)[3]).toBe(60_000);
    expect(log.map((a) => a.httpStatus)).toEqual([500, 500, 500, 200]);
    // The control API's delivery log tells the same story.
    const listed = await sb.control("GET", `/callbacks?tradeNo=${tradeNo}`);
    expect(listed.json.data.list).toHaveLength(1);
    expect(listed.json.data.list[0]).toMatchObject({ eventId, status: "delivered", nextAttemptTime: null });
    expect(listed.json.data.list[0].attempts.map((a: { httpStatus: number }) => a.httpStatus)).toEqual([500, 500, 500, 200]);
    await expectNothingAfterAcknowledgement(sb, eventId, r);
  });

  it("many events against a flaky receiver: every one delivered once acknowledged, none lost, none sent after", async () => {
    const sb = await sandbox(200);
    const r = await receiver();
    const events = 12;
    // The first 20 answers fail in every way a receiver can fail; then it is healthy.
    const failures: ("hang" | "drop" | { status: number; location?: string })[] = [{ status: 500 }, "drop", { status: 503 }, { status: 302, location: "http://127.0.0.1:9/" }, { status: 404 }];
    for (let i = 0; i < 20; i++) r.script.push(i % 7 === 6 ? "hang" : (failures[i % failures.length] as { status: number }));

    const paid: { eventId: string; tradeNo: string }[] = [];
    for (let i = 0; i < events; i++) paid.push(await pay(sb, r.url));
    const ids = paid.map((p) => p.eventId);
    const pending = () => ids.filter((id) => event(sb, id).status === "pending");
    const settledRound = (round: number) => () => ids.every((id) => event(sb, id).status !== "pending" || event(sb, id).attempts.length >= round);

    await until(settledRound(1), "the first attempts");
    for (let round = 1; pending().length > 0; round++) {
      expect(round).toBeLessThan(DEFAULT_CALLBACK_SCHEDULE_MS.length);
      await advance(sb, (DEFAULT_CALLBACK_SCHEDULE_MS[round - 1] as number) / 1000);
      await until(settledRound(round + 1), `attempt round ${round + 1}`);
    }

    for (const id of ids) {
      const e = event(sb, id);
      expect(e.status, id).toBe("delivered");
      // Exactly one acknowledged attempt, and it is the last one.
      expect(e.attempts.filter((a) => a.acknowledged)).toHaveLength(1);
      expect(e.attempts.at(-1)!.acknowledged).toBe(true);
      expect(e.attempts.map((a) => a.time - T0)).toEqual(scheduleOffsets(e.attempts.length));
      // The receiver answered 2xx to it once, and saw nothing of it afterwards.
      const seen = r.deliveries.filter((d) => (parseJsonLossless(d.body) as { id: string }).id === id);
      const answered = seen.filter((d) => typeof d.answer === "object" && d.answer.status < 300);
      expect(answered).toHaveLength(1);
      expect(seen.at(-1)).toBe(answered[0]);
    }
    const delivered = await sb.control("GET", "/callbacks?status=delivered");
    expect(delivered.json.data.list).toHaveLength(events);
    expect((await sb.control("GET", "/callbacks?status=pending")).json.data.list).toHaveLength(0);
    expect((await sb.control("GET", "/callbacks?status=failed")).json.data.list).toHaveLength(0);

    const before = r.deliveries.length;
    await advance(sb, 2 * 24 * 3600);
    await sb.control("GET", "/clock");
    expect(r.deliveries).toHaveLength(before);
  });
});
