// Callbacks (DESIGN item 8) against a local receiver: signed like requests with a fresh
// timestamp and nonce per attempt, one event id and one body for every attempt, retried on the
// (compressed) schedule until a 2xx, never sent again after it, logged attempt by attempt.
import { afterEach, describe, expect, it } from "vitest";
import { parseJsonLossless } from "../../src/json/index.js";
import { createCallbackDispatcher } from "../../src/sandbox/callbacks/dispatcher.js";
import { createQuietLogger, createSandboxClock, defaultFixturesText } from "../../src/sandbox/index.js";
import { createMemoryNonceStore, verifySignedRequest } from "../../src/signing/index.js";
import { DEMO, DEMO_USER, eventually, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

async function setup(options: { schedule?: number[]; timeoutMs?: number; callbackUrl?: string } = {}): Promise<TestSandbox> {
  const fixtures = parseJsonLossless(defaultFixturesText()) as { apps: { callbackUrl: string | null }[] };
  if (options.callbackUrl) fixtures.apps[0]!.callbackUrl = options.callbackUrl;
  const sb = await startSandbox({ fixtures, allowInsecureNotify: true, callbackSchedule: options.schedule ?? [40, 40, 40], callbackTimeoutMs: options.timeoutMs ?? 2000 });
  cleanups.push(async () => {
    expect(sb.logs.errors).toEqual([]);
    await sb.close();
  });
  return sb;
}

async function receiver(): Promise<Receiver> {
  const r = await startReceiver();
  cleanups.push(() => r.close());
  return r;
}

async function paidTrade(sb: TestSandbox, notifyUrl: string, attach?: string): Promise<{ tradeNo: string; eventId: string }> {
  const { tradeNo } = await sb.createTrade({ notifyUrl, ...(attach !== undefined && { attach }) });
  const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
  expect(paid.json.code, paid.text).toBe(0);
  return { tradeNo, eventId: paid.json.data.eventId };
}

async function deliveries(sb: TestSandbox, query: string) {
  const answer = await sb.control("GET", `/callbacks?${query}`);
  expect(answer.json.code, answer.text).toBe(0);
  return answer.json.data.list as any[];
}

const ATTACH = '{"cartId":"c-889","note":"say \\"hi\\" \u2028 ✓ 😀","big":9007199254740993}';

describe("payment.succeeded", () => {
  it("is retried after a 500 and a redirect, then acknowledged, and never sent again", async () => {
    const sb = await setup({ schedule: [40, 40, 40] });
    const r = await receiver();
    r.script.push({ status: 500 }, { status: 302, location: "https://elsewhere.example/" });
    const { tradeNo, eventId } = await paidTrade(sb, r.url, ATTACH);
    const received = await r.waitFor(3);

    const bodies = received.map((delivery) => delivery.body);
    expect(new Set(bodies).size).toBe(1);
    const event = parseJsonLossless(bodies[0]!) as any;
    expect(event).toMatchObject({ id: eventId, type: "payment.succeeded", data: { tradeNo, tradeStatus: "SUCCESS", totalAmount: 4250, merchantId: 10001 } });
    expect(event.id).toMatch(/^evt_[A-Za-z0-9]{16,}$/);
    expect(event.data.attach).toBe(ATTACH);
    expect(bodies[0]).toContain(JSON.stringify(ATTACH));

    const nonces = new Set(received.map((delivery) => delivery.headers["x-nonce"]));
    expect(nonces.size).toBe(3);
    const nonceStore = createMemoryNonceStore();
    for (const delivery of received) {
      expect(delivery.headers["content-type"]).toBe("application/json");
      expect(delivery.headers["x-app-key"]).toBe(DEMO.appKey);
      const verified = await verifySignedRequest({ headers: delivery.headers, body: delivery.body, secretsFor: () => [DEMO.appSecret], now: () => sb.sandbox.clock.now(), nonceStore });
      expect(verified.ok, JSON.stringify(verified)).toBe(true);
    }
    // The retries waited for the schedule.
    expect(received[1]!.at - received[0]!.at).toBeGreaterThanOrEqual(35);
    expect(received[2]!.at - received[1]!.at).toBeGreaterThanOrEqual(35);

    const [log] = await eventually(async () => {
      const list = await deliveries(sb, `eventId=${eventId}`);
      return list[0]?.status === "delivered" && list;
    });
    expect(log).toMatchObject({ eventId, tradeNo, type: "payment.succeeded", targetUrl: r.url, nextAttemptTime: null, failureReason: null, body: bodies[0] });
    expect(log.attempts.map((a: any) => [a.attempt, a.httpStatus, a.acknowledged])).toEqual([[1, 500, false], [2, 302, false], [3, 200, true]]);
    expect(log.attempts[1].error).toMatch(/redirect/);
    expect(log.attempts.every((a: any) => typeof a.durationMs === "number")).toBe(true);

    // Acknowledged: nothing more, neither by timers nor by moving the clock.
    await sb.control("POST", "/clock/advance", { seconds: 86_400 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toHaveLength(3);
  });

  it("is marked failed after the last attempt, and then left alone", async () => {
    const sb = await setup({ schedule: [20, 20] });
    const r = await receiver();
    r.script.push({ status: 500 }, { status: 404 }, { status: 503 }, { status: 500 });
    const { eventId } = await paidTrade(sb, r.url);
    const [log] = await eventually(async () => {
      const list = await deliveries(sb, `eventId=${eventId}`);
      return list[0]?.status === "failed" && list;
    });
    expect(log.attempts.map((a: any) => a.httpStatus)).toEqual([500, 404, 503]);
    expect(log.failureReason).toBe("not acknowledged after 3 attempts");
    expect(sb.logs.warnings.map((w) => w.message)).toContain("Callback given up: marked failed.");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.received).toHaveLength(3);
    expect(await deliveries(sb, "status=failed")).toHaveLength(1);
  });

  it("treats no answer within the timeout as a failure", async () => {
    const sb = await setup({ schedule: [20], timeoutMs: 150 });
    const r = await receiver();
    r.script.push("hang");
    const { eventId } = await paidTrade(sb, r.url);
    const [log] = await eventually(async () => {
      const list = await deliveries(sb, `eventId=${eventId}`);
      return list[0]?.status === "delivered" && list;
    });
    expect(log.attempts[0]).toMatchObject({ httpStatus: null, error: "no answer within 150 ms", acknowledged: false });
    expect(log.attempts[0].durationMs).toBeGreaterThanOrEqual(140);
    expect(log.attempts[1]).toMatchObject({ httpStatus: 200, acknowledged: true });
  });

  it("treats a refused connection as a failure", async () => {
    const sb = await setup({ schedule: [10] });
    const closed = await startReceiver();
    await closed.close();
    const { eventId } = await paidTrade(sb, closed.url);
    const [log] = await eventually(async () => {
      const list = await deliveries(sb, `eventId=${eventId}`);
      return list[0]?.status === "failed" && list;
    });
    expect(log.attempts).toHaveLength(2);
    expect(log.attempts[0].error).toMatch(/ECONNREFUSED/);
  });

  it("walks the default 24-hour schedule when the clock is advanced", async () => {
    const fixtures = parseJsonLossless(defaultFixturesText()) as object;
    const sb = await startSandbox({ fixtures, allowInsecureNotify: true });
    cleanups.push(() => sb.close());
    const r = await receiver();
    r.script.push({ status: 500 }, { status: 500 });
    const { eventId } = await paidTrade(sb, r.url);
    await r.waitFor(1);
    const pending = await eventually(async () => (await deliveries(sb, `eventId=${eventId}`))[0]?.attempts.length === 1 && (await deliveries(sb, `eventId=${eventId}`))[0]);
    expect(Date.parse(pending.nextAttemptTime) - sb.sandbox.clock.now()).toBeGreaterThan(14_000);
    await sb.control("POST", "/clock/advance", { seconds: 14 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(r.received).toHaveLength(1);
    await sb.control("POST", "/clock/advance", { seconds: 1 });
    await r.waitFor(2);
    await eventually(async () => (await deliveries(sb, `eventId=${eventId}`))[0]?.attempts.length === 2);
    await sb.control("POST", "/clock/advance", { seconds: 15 });
    await r.waitFor(3);
    const [log] = await eventually(async () => {
      const list = await deliveries(sb, `eventId=${eventId}`);
      return list[0]?.status === "delivered" && list;
    });
    expect(log.attempts).toHaveLength(3);
  });

  it("stops retrying when the sandbox is closed", async () => {
    const sb = await setup({ schedule: [80] });
    const r = await receiver();
    r.script.push({ status: 500 });
    await paidTrade(sb, r.url);
    await r.waitFor(1);
    await sb.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(r.received).toHaveLength(1);
  });

  it("lists deliveries by trade, newest first", async () => {
    const sb = await setup();
    const r = await receiver();
    const first = await paidTrade(sb, r.url);
    const second = await paidTrade(sb, r.url);
    await r.waitFor(2);
    const all = await deliveries(sb, "");
    expect(all.map((d) => d.eventId)).toEqual([second.eventId, first.eventId]);
    expect((await deliveries(sb, `tradeNo=${first.tradeNo}`)).map((d) => d.eventId)).toEqual([first.eventId]);
  });
});

describe("notifyUrl over http", () => {
  it("is refused unless allowed, and then only for loopback hosts", async () => {
    const strict = await startSandbox();
    cleanups.push(() => strict.close());
    const body = { merchantId: 10001, outTradeNo: "insecure-1", totalAmount: 1, subject: "x" };
    const refused = await strict.signed({ path: "/payment/cashier/create", body: { ...body, notifyUrl: "http://127.0.0.1:8080/cb" } });
    expect(refused.json.code).toBe(100009);
    expect(refused.json.msg).toContain("body.notifyUrl");

    const relaxed = await setup();
    for (const notifyUrl of ["http://127.0.0.1:8080/cb", "http://localhost/cb", "http://[::1]:8080/cb"]) {
      const answer = await relaxed.signed({ path: "/payment/cashier/create", body: { ...body, outTradeNo: `ok-${notifyUrl.length}`, notifyUrl } });
      expect(answer.json.code, notifyUrl).toBe(0);
    }
    const remote = await relaxed.signed({ path: "/payment/cashier/create", body: { ...body, notifyUrl: "http://app.example.com/cb" } });
    expect(remote.json.code).toBe(100009);
    const order = await relaxed.createOrder();
    expect((await relaxed.signed({ path: `/orders/${order}/pay`, body: { merchantId: 10001, notifyUrl: "http://127.0.0.1:1/cb" } })).json.code).toBe(0);
  });
});

describe("member-card application callbacks", () => {
  it("approval and rejection go to the app's callbackUrl, signed", async () => {
    const r = await receiver();
    const sb = await setup({ callbackUrl: r.url });
    const purchase = async () => (await sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60004, appUserId: DEMO_USER } })).json.data.id as bigint | number;

    const approvedId = await purchase();
    const approved = await sb.control("POST", `/member-card-applications/${approvedId}/approve`);
    expect(approved.json.data.application).toMatchObject({ status: "APPROVED", reason: null });
    const rejectedId = await purchase();
    const rejected = await sb.control("POST", `/member-card-applications/${rejectedId}/reject`, { reason: "Credit check not passed" });
    expect(rejected.json.data.application).toMatchObject({ status: "REJECTED", reason: "Credit check not passed", memberCardId: null });

    const received = await r.waitFor(2);
    const events = received.map((delivery) => parseJsonLossless(delivery.body) as any).sort((a, b) => (a.type < b.type ? -1 : 1));
    expect(events[0]).toMatchObject({
      id: approved.json.data.eventId,
      type: "member_card.application.approved",
      data: { applicationId: approvedId, memberCardId: approved.json.data.application.memberCardId, merchantId: 10001, templateId: 60004, appUserId: Number(DEMO_USER) },
    });
    expect(events[1]).toMatchObject({ id: rejected.json.data.eventId, type: "member_card.application.rejected", data: { applicationId: rejectedId, reason: "Credit check not passed" } });
    for (const delivery of received) {
      const verified = await verifySignedRequest({ headers: delivery.headers, body: delivery.body, secretsFor: () => [DEMO.appSecret], now: () => sb.sandbox.clock.now(), nonceStore: createMemoryNonceStore() });
      expect(verified.ok).toBe(true);
    }
    expect((await deliveries(sb, `applicationId=${approvedId}`)).map((d) => d.type)).toEqual(["member_card.application.approved"]);
  });

  it("an app without a callbackUrl gets its event logged as failed, never dropped", async () => {
    const sb = await setup();
    const basic = { appKey: "basic-app-key", appSecret: "basic-app-secret" };
    const appUserId = await sb.syncUser("basic-user", basic);
    const { id } = (await sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60004, appUserId }, app: basic })).json.data;
    const approved = await sb.control("POST", `/member-card-applications/${id}/approve`);
    const [log] = await deliveries(sb, `eventId=${approved.json.data.eventId}`);
    expect(log).toMatchObject({ status: "failed", targetUrl: null, failureReason: "the app has no callbackUrl", attempts: [] });
  });
});

describe("payload validation", () => {
  it("refuses to build an event that does not match its webhook schema", () => {
    const dispatcher = createCallbackDispatcher({ clock: createSandboxClock(), logger: createQuietLogger(), scheduleMs: [], timeoutMs: 100, fetch });
    expect(() =>
      dispatcher.prepare({ type: "payment.succeeded", appKey: "a", secret: "s", targetUrl: "https://x.example", createTime: Date.now(), data: { tradeNo: "not digits", totalAmount: 0 } }),
    ).toThrow(/webhook schema.*tradeNo/);
    dispatcher.close();
  });
});
