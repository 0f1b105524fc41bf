// The control API (/sandbox): each operation answers its spec's success envelope, validation
// and errors use the signed interface's codes, and reset returns to the fixtures.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USER, errorEnvelopeErrors, startSandbox, successSchemaErrors, T0, type Answer, type TestSandbox, expectSuccess } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

const ok = (operationId: string, answer: Answer) => expectSuccess("sandbox-control", operationId, answer);

describe("operations", () => {
  it("payTrade and closeTrade act as the user", async () => {
    const paid = await sb.createTrade({ attach: "x" });
    const result = ok("payTrade", await sb.control("POST", `/trades/${paid.tradeNo}/pay`));
    expect(result.trade).toMatchObject({ tradeNo: paid.tradeNo, tradeStatus: "SUCCESS", attach: "x", orderId: null });
    expect(result.eventId).toMatch(/^evt_/);
    const closed = await sb.createTrade();
    expect(ok("closeTrade", await sb.control("POST", `/trades/${closed.tradeNo}/close`)).tradeStatus).toBe("CLOSED");
  });

  it("startOrderService starts a paid voucher order with an id above 2^53", async () => {
    const id = await sb.createOrder({ orderType: 3 });
    const { tradeNo } = (await sb.signed({ path: `/orders/${id}/pay`, body: { merchantId: 10001, notifyUrl: "https://127.0.0.1:9/cb" } })).json.data;
    await sb.control("POST", `/trades/${tradeNo}/pay`);
    const order = ok("startOrderService", await sb.control("POST", `/orders/${id}/start-service`));
    expect(order).toMatchObject({ id, status: 2 });
  });

  it("approveCreditApplication and rejectCreditApplication act as the merchant", async () => {
    const purchase = async () => (await sb.signed({ path: "/member-cards/purchase", body: { merchantId: 10001, templateId: 60004, appUserId: DEMO_USER } })).json.data.id;
    const approved = ok("approveCreditApplication", await sb.control("POST", `/member-card-applications/${await purchase()}/approve`));
    expect(approved.application.status).toBe("APPROVED");
    const rejected = ok("rejectCreditApplication", await sb.control("POST", `/member-card-applications/${await purchase()}/reject`, { reason: "No" }));
    expect(rejected.application).toMatchObject({ status: "REJECTED", reason: "No" });
  });

  it("getClock and advanceClock move the sandbox time", async () => {
    const before = ok("getClock", await sb.control("GET", "/clock"));
    expect(before.epochMs).toBe(sb.sandbox.clock.now());
    const after = ok("advanceClock", await sb.control("POST", "/clock/advance", { seconds: 90 }));
    expect(after.epochMs - before.epochMs).toBe(90_000);
    expect(after.offsetSeconds - before.offsetSeconds).toBe(90);
    expect(Date.parse(after.now)).toBe(after.epochMs);
    expect(sb.sandbox.clock.now() - sb.baseClock.now()).toBe(after.offsetSeconds * 1000);
  });

  it("listCallbackDeliveries answers the log", async () => {
    ok("listCallbackDeliveries", await sb.control("GET", "/callbacks?status=pending"));
  });

  it("needs no signature", async () => {
    expect((await sb.raw("/sandbox/clock")).json.code).toBe(0);
  });
});

describe("refusals", () => {
  const refused = (answer: Answer, code: number, status: number, mentions: RegExp) => {
    expect(answer.json.code, answer.text).toBe(code);
    expect(answer.status).toBe(status);
    expect(answer.json.msg).toMatch(mentions);
    expect(errorEnvelopeErrors(answer.json)).toEqual([]);
  };

  it("validates bodies, parameters and paths against the control spec", async () => {
    refused(await sb.control("POST", "/clock/advance", { seconds: 0 }), 100009, 400, /body\.seconds must be >= 1/);
    refused(await sb.control("POST", "/clock/advance", { seconds: "60" }), 100009, 400, /body\.seconds must be integer/);
    refused(await sb.control("POST", "/clock/advance", {}), 100009, 400, /body\.seconds is required/);
    refused(await sb.control("POST", "/clock/advance"), 100009, 400, /body is required/);
    refused(await sb.control("POST", "/trades/abc/pay"), 100009, 400, /path\.tradeNo must match pattern/);
    refused(await sb.control("GET", "/callbacks?status=lost"), 100009, 400, /query\.status/);
    refused(await sb.control("GET", "/callbacks?foo=1"), 100009, 400, /query\.foo is not allowed/);
    refused(await sb.control("GET", "/nothing-here"), 100015, 404, /path/);
    refused(await sb.control("DELETE", "/clock"), 100016, 405, /DELETE/);
    refused(await sb.raw("/sandbox/clock/advance", { method: "POST", headers: { "Content-Type": "text/plain" }, body: "seconds=5" }), 100014, 415, /application\/json/);
    refused(await sb.control("POST", "/trades/1234/pay"), 400001, 404, /tradeNo 1234/);
    refused(await sb.control("POST", "/orders/42/start-service"), 300001, 404, /orderId 42/);
  });
});

describe("resetState", () => {
  it("drops what was created and keeps the fixtures and the clock", async () => {
    const userId = await sb.syncUser("reset-user");
    const orderId = await sb.createOrder({ userId });
    const { tradeNo } = await sb.createTrade();
    await sb.control("POST", `/trades/${tradeNo}/pay`);
    const offset = sb.sandbox.clock.offsetMs;
    const counts = ok("resetState", await sb.control("POST", "/reset"));
    expect(counts).toEqual({ merchants: 6, stores: 7, cardTemplates: 7, apps: 2, clockOffsetSeconds: Math.floor(offset / 1000) });
    expect((await sb.signed({ path: `/orders/${orderId}?merchantId=10001` })).json.code).toBe(300001);
    expect((await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` })).json.code).toBe(400001);
    expect((await sb.control("GET", "/callbacks")).json.data.total).toBe(0);
    expect((await sb.signed({ path: "/customers/sync", body: { openUserId: "reset-user" } })).json.data.created).toBe(true);
    expect((await sb.signed({ path: "/customers/sync", body: { openUserId: "user-4711" } })).json.data).toMatchObject({ appUserId: 880000000001, created: false });
    expect(sb.sandbox.clock.offsetMs).toBe(offset);
    expect(sb.baseClock.now()).toBe(T0);
  });
});

describe("resetClock", () => {
  it("moves the clock back to real time and changes nothing else", async () => {
    await sb.control("POST", "/clock/advance", { seconds: 120 });
    const { tradeNo } = await sb.createTrade();
    const clock = ok("resetClock", await sb.control("POST", "/clock/reset"));
    expect(clock).toMatchObject({ offsetSeconds: 0, epochMs: sb.baseClock.now() });
    expect(sb.sandbox.clock.offsetMs).toBe(0);
    expect((await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` })).json.data.tradeStatus).toBe("WAIT_BUYER_PAY");
    expect(ok("resetState", await sb.control("POST", "/reset")).clockOffsetSeconds).toBe(0);
  });
});
