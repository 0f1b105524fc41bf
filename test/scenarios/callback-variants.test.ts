// Callbacks that go wrong on purpose: redeliverCallback sends a paid trade's event again as each
// variant to the package's own callback handler (createCallbackHandler on node:http), which
// must acknowledge an exact duplicate (handling it once) and reordered members (verified over
// the bytes), and refuse a tampered body, a wrong secret and a stale timestamp. Late and
// scheduled duplicates go out as the sandbox clock passes them; every one is listed, marked, in
// listCallbackDeliveries; none changes the event's status. And one large clock move sends every
// retry of a failing event that it passed, not one.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createCallbackHandler, type CallbackEvent } from "../../src/callbacks/index.js";
import { DEFAULT_CALLBACK_SCHEDULE_MS } from "../../src/sandbox/index.js";
import { DEMO, eventually, startSandbox, successSchemaErrors, type Answer, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
let server: Server;
let receiverUrl: string;
let handled: CallbackEvent[];
let refusals: string[];
/** While set, the receiver answers 500 to everything (a receiver that is down). */
let failing = false;
let requests = 0;

beforeAll(async () => {
  sb = await startSandbox({ allowInsecureNotify: true, callbackTimeoutMs: 2000 });
  const handler = createCallbackHandler({
    secrets: [DEMO.appSecret],
    appKey: DEMO.appKey,
    // The sandbox signs with its own clock (fixed in tests): the receiver checks against it.
    now: () => sb.sandbox.clock.now(),
    onEvent: (event) => void handled.push(event),
    onError: (_error, context) => void refusals.push(context.failure?.name ?? "handling"),
  });
  server = createServer((req, res) => {
    requests += 1;
    if (!failing) return handler(req, res);
    req.resume();
    req.on("end", () => res.writeHead(500, { "Content-Type": "text/plain" }).end("HANDLER_FAILED: down for maintenance"));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mop/notify`;
});
afterAll(async () => {
  expect(sb.logs.errors).toEqual([]);
  await sb.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
});
beforeEach(async () => {
  await sb.control("POST", "/clock/reset");
  await sb.control("POST", "/reset");
  handled = [];
  refusals = [];
  failing = false;
  requests = 0;
});

async function paidEvent(): Promise<{ tradeNo: string; eventId: string }> {
  const { tradeNo } = await sb.createTrade({ notifyUrl: receiverUrl });
  const paid = await sb.control("POST", `/trades/${tradeNo}/pay`);
  const eventId = paid.json.data.eventId as string;
  if (!failing) await eventually(async () => (await delivery(eventId)).status === "delivered");
  return { tradeNo, eventId };
}

async function delivery(eventId: string) {
  const answer = await sb.control("GET", `/callbacks?eventId=${eventId}`);
  expect(successSchemaErrors("sandbox-control", "listCallbackDeliveries", answer.json)).toEqual([]);
  return answer.json.data.list[0];
}

async function redeliver(eventId: string, body: Record<string, unknown>): Promise<Answer> {
  const answer = await sb.control("POST", `/callbacks/${eventId}/redeliver`, body);
  if (answer.json?.code === 0) expect(successSchemaErrors("sandbox-control", "redeliverCallback", answer.json)).toEqual([]);
  return answer;
}

describe("redeliverCallback, each variant, to the package's callback handler", () => {
  it.each([
    ["exact", 200, "acknowledged", []],
    ["reordered-fields", 200, "acknowledged", []],
    ["tampered-body", 401, "refused", ["SIGNATURE_MISMATCH"]],
    ["wrong-secret", 401, "refused", ["SIGNATURE_MISMATCH"]],
    ["stale-timestamp", 401, "refused", ["TIMESTAMP_OUT_OF_WINDOW"]],
  ])("%s: HTTP %i, %s as a correct receiver must; handled once in all", async (variant, status, expected, failures) => {
    const { eventId } = await paidEvent();
    expect(handled).toHaveLength(1);
    const answer = await redeliver(eventId, { variant });
    expect(answer.json.code, answer.text).toBe(0);
    const [sent] = answer.json.data.redeliveries;
    expect(sent).toMatchObject({ redeliveryId: "rdl_1", variant, status: "sent", httpStatus: status, acknowledged: status === 200, expected, asExpected: true });
    expect(sent.headers["X-Sign"]).toMatch(/masked/);
    expect(refusals).toEqual(failures);
    // A duplicate is acknowledged but not handled again.
    expect(handled).toHaveLength(1);
    const logged = await delivery(eventId);
    expect(logged.status).toBe("delivered");
    expect(logged.attempts).toHaveLength(1);
    expect(logged.redeliveries).toEqual([expect.objectContaining({ redeliveryId: "rdl_1", variant, expected, asExpected: true })]);
  });

  it("reordered-fields: the handler verifies the bytes sent and handles the event it has not seen", async () => {
    failing = true;
    const { eventId } = await paidEvent();
    await eventually(async () => (await delivery(eventId)).attempts.length === 1);
    failing = false;
    const answer = await redeliver(eventId, { variant: "reordered-fields" });
    const [sent] = answer.json.data.redeliveries;
    expect(sent.httpStatus).toBe(200);
    expect(sent.body).not.toBeNull();
    expect(JSON.parse(sent.body)).toEqual(JSON.parse((await delivery(eventId)).body));
    expect(handled.map((event) => event.id)).toEqual([eventId]);
    // The event itself still failed its first attempt: a redelivery is not a retry.
    expect((await delivery(eventId)).status).toBe("pending");
  });

  it("a tampered body is the event's body with the amount changed, the same length", async () => {
    const { eventId } = await paidEvent();
    const [sent] = (await redeliver(eventId, { variant: "tampered-body" })).json.data.redeliveries;
    const original = (await delivery(eventId)).body as string;
    expect(sent.body).toHaveLength(original.length);
    expect(JSON.parse(sent.body).data.totalAmount).not.toBe(JSON.parse(original).data.totalAmount);
  });
});

describe("late and scheduled redeliveries", () => {
  it("late: scheduled on the sandbox clock, sent when a clock move passes it", async () => {
    const { eventId } = await paidEvent();
    const answer = await redeliver(eventId, { variant: "exact", afterSeconds: 120 });
    expect(answer.json.data.redeliveries).toEqual([expect.objectContaining({ status: "scheduled", dueTime: "2026-11-22T10:17:30+08:00", time: null, httpStatus: null, asExpected: null })]);
    await sb.control("POST", "/clock/advance", { seconds: 119 });
    expect((await delivery(eventId)).redeliveries[0].status).toBe("scheduled");
    await sb.control("POST", "/clock/advance", { seconds: 1 });
    await eventually(async () => (await delivery(eventId)).redeliveries[0].status === "sent");
    expect((await delivery(eventId)).redeliveries[0]).toMatchObject({ httpStatus: 200, time: "2026-11-22T10:17:30+08:00", asExpected: true });
  });

  it("duplicates on a schedule: one now, the rest every everySeconds; one large move sends all that became due, in order", async () => {
    const { eventId } = await paidEvent();
    const answer = await redeliver(eventId, { variant: "exact", times: 4, everySeconds: 60 });
    expect(answer.json.data.redeliveries.map((r: { status: string }) => r.status)).toEqual(["sent", "scheduled", "scheduled", "scheduled"]);
    await sb.control("POST", "/clock/advance", { seconds: 150 });
    await eventually(async () => (await delivery(eventId)).redeliveries.filter((r: { status: string }) => r.status === "sent").length === 3);
    await sb.control("POST", "/clock/advance", { seconds: 3600 });
    await eventually(async () => (await delivery(eventId)).redeliveries.every((r: { status: string }) => r.status === "sent"));
    const sent = (await delivery(eventId)).redeliveries;
    expect(sent.map((r: { redeliveryId: string }) => r.redeliveryId)).toEqual(["rdl_1", "rdl_2", "rdl_3", "rdl_4"]);
    expect(sent.every((r: { httpStatus: number }) => r.httpStatus === 200)).toBe(true);
    expect(handled).toHaveLength(1);
  });

  it("a reset drops them, and the ids count from 1 again", async () => {
    const { eventId } = await paidEvent();
    await redeliver(eventId, { variant: "exact", afterSeconds: 60 });
    await sb.control("POST", "/reset");
    await sb.control("POST", "/clock/advance", { seconds: 120 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requests).toBe(1);
    const again = await paidEvent();
    expect((await redeliver(again.eventId, { variant: "exact" })).json.data.redeliveries[0].redeliveryId).toBe("rdl_1");
  });
});

describe("refusals", () => {
  it.each([
    ["no variant", {}, /variant/],
    ["an unknown variant", { variant: "late" }, /variant must be equal to one of the allowed values/],
    ["more than 20 at once", { variant: "exact", times: 21 }, /times must be <= 20/],
  ])("%s is 100009", async (_name, body, message) => {
    const { eventId } = await paidEvent();
    const answer = await redeliver(eventId, body);
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toMatch(message);
  });

  it("an event the sandbox does not hold is 400005 naming it", async () => {
    const answer = await redeliver("evt_AAAAAAAAAAAAAAAAAAAAAAAA", { variant: "exact" });
    expect(answer.status).toBe(404);
    expect(answer.json).toMatchObject({ code: 400005, data: null });
    expect(answer.json.msg).toMatch(/eventId: the sandbox holds no callback event evt_AAAAAAAAAAAAAAAAAAAAAAAA/);
  });

  it("an event without a target (the app has no callbackUrl) is 100009", async () => {
    const prepared = sb.sandbox.callbacks.prepare({ type: "member_card.application.approved", appKey: "basic-app-key", targetUrl: null, createTime: sb.sandbox.clock.now(), data: { applicationId: 910000000201n, merchantId: 10001n, templateId: 600001n, appUserId: 880000000001n, memberCardId: 900000000101n, reviewTime: "2026-11-22T10:15:30+08:00" } });
    const event = await sb.sandbox.callbacks.dispatch(prepared);
    const answer = await redeliver(event.eventId, { variant: "exact" });
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toMatch(/has no target/);
  });

  it("keeps at most 100 per event: 100018 when none of them is sent", async () => {
    const { eventId } = await paidEvent();
    for (let i = 0; i < 5; i++) expect((await redeliver(eventId, { variant: "exact", afterSeconds: 3600, times: 20 })).json.code).toBe(0);
    const refused = await redeliver(eventId, { variant: "exact", afterSeconds: 3600 });
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe(100018);
  });
});

describe("one large clock move", () => {
  it("sends every retry of a failing event that it passed, not one", async () => {
    failing = true;
    const { eventId } = await paidEvent();
    await eventually(async () => (await delivery(eventId)).attempts.length === 1);
    // The retries whose time (counted from the first attempt) is within the hour.
    let passed = 0;
    for (let at = 0, i = 0; i < DEFAULT_CALLBACK_SCHEDULE_MS.length && at + DEFAULT_CALLBACK_SCHEDULE_MS[i]! <= 3_600_000; i++) {
      at += DEFAULT_CALLBACK_SCHEDULE_MS[i]!;
      passed += 1;
    }
    expect(passed).toBe(6);
    await sb.control("POST", "/clock/advance", { seconds: 3600 });
    await eventually(async () => (await delivery(eventId)).attempts.length === 1 + passed);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const logged = await delivery(eventId);
    expect(logged.attempts).toHaveLength(1 + passed);
    expect(logged.attempts.every((attempt: { httpStatus: number; trigger: string }) => attempt.httpStatus === 500 && attempt.trigger === "scheduled")).toBe(true);
    expect(logged.status).toBe("pending");
    // The receiver is back: the next retry delivers it.
    failing = false;
    await sb.control("POST", "/clock/advance", { seconds: 1800 });
    await eventually(async () => (await delivery(eventId)).status === "delivered");
    expect(handled).toHaveLength(1);
  });
});
