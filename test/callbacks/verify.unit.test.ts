import { describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import { callbackEventTypes, verifyCallback, type VerifyCallbackInput } from "../../src/callbacks/index.js";
import { createMemoryNonceStore } from "../../src/signing/index.js";
import { appKey, appSecret, deliver, now, NOW_MS, signBytes, webhookExamples, type Delivery } from "./support.js";

const examples = webhookExamples();
const paid = examples.paymentSucceeded!;
const paidBody = JSON.stringify(paid);

function verify(delivery: Delivery, overrides: Partial<VerifyCallbackInput> = {}) {
  return verifyCallback({
    headers: delivery.headers,
    rawBody: delivery.body,
    secrets: appSecret,
    now,
    nonceStore: createMemoryNonceStore(),
    ...overrides,
  });
}

const withHeader = (delivery: Delivery, name: string, value: string | undefined): Delivery => {
  const headers = { ...delivery.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...delivery, headers };
};

describe("verifyCallback accepts", () => {
  it.each(Object.entries(examples))("the spec's %s example, parsed and typed", async (_name, payload) => {
    const result = await verify(deliver(JSON.stringify(payload)));
    expect(result).toEqual({ ok: true, event: payload, appKey, timestamp: Math.floor(NOW_MS / 1000), nonce: expect.any(String) });
  });

  it("knows the event types the spec declares", () => {
    expect(callbackEventTypes().sort()).toEqual(["member_card.application.approved", "member_card.application.rejected", "payment.succeeded"]);
  });

  it("ids above 2^53 - 1, as exact bigints", async () => {
    const body = paidBody.replace('"merchantId":10001', '"merchantId":9223372036854775807');
    const result = await verify(deliver(body));
    expect(result.ok && result.event.data.merchantId).toBe(9223372036854775807n);
  });

  it("the raw body as bytes", async () => {
    const delivery = deliver(paidBody);
    expect(await verify(delivery, { rawBody: Buffer.from(delivery.body, "utf8") })).toMatchObject({ ok: true });
  });

  it("a delivery signed with the new secret during a rotation", async () => {
    const result = await verify(deliver(paidBody, { secret: "new-secret-000000000001" }), { secrets: [appSecret, "new-secret-000000000001"] });
    expect(result).toMatchObject({ ok: true });
  });

  it("the expected app key when one is configured", async () => {
    expect(await verify(deliver(paidBody), { appKey })).toMatchObject({ ok: true, appKey });
  });

  it("an attach byte for byte, multi-byte text included", async () => {
    const body = JSON.stringify({ ...paid, data: { ...paid.data, attach: '{"note":"少糖 ☕","n":1}' } });
    const result = await verify(deliver(body));
    expect(result.ok && result.event.type === "payment.succeeded" && result.event.data.attach).toBe('{"note":"少糖 ☕","n":1}');
  });
});

describe("verifyCallback refuses", () => {
  const good = deliver(paidBody);
  const reuseStore = createMemoryNonceStore();

  it.each<[string, () => Promise<unknown>, { name: string; httpStatus: number }]>([
    ["a missing X-Sign", () => verify(withHeader(good, "X-Sign", undefined)), { name: "SIGNATURE_HEADER_MISSING", httpStatus: 401 }],
    ["a missing X-App-Key", () => verify(withHeader(good, "X-App-Key", undefined)), { name: "SIGNATURE_HEADER_MISSING", httpStatus: 401 }],
    ["a millisecond timestamp", () => verify(withHeader(good, "X-Timestamp", String(NOW_MS))), { name: "TIMESTAMP_MALFORMED", httpStatus: 401 }],
    ["a malformed nonce", () => verify(withHeader(good, "X-Nonce", "short")), { name: "NONCE_MALFORMED", httpStatus: 401 }],
    [
      "a hexadecimal signature",
      () => verify(withHeader(good, "X-Sign", Buffer.from(good.headers["X-Sign"]!, "base64").toString("hex"))),
      { name: "SIGNATURE_MALFORMED", httpStatus: 401 },
    ],
    ["a stale timestamp (301 s old)", () => verify(deliver(paidBody, { atMs: NOW_MS - 301_000 })), { name: "TIMESTAMP_OUT_OF_WINDOW", httpStatus: 401 }],
    ["a timestamp from the future (301 s ahead)", () => verify(deliver(paidBody, { atMs: NOW_MS + 301_000 })), { name: "TIMESTAMP_OUT_OF_WINDOW", httpStatus: 401 }],
    [
      "a reused nonce (a replayed delivery)",
      async () => {
        const once = deliver(paidBody);
        await verify(once, { nonceStore: reuseStore });
        return verify(once, { nonceStore: reuseStore });
      },
      { name: "NONCE_REUSED", httpStatus: 401 },
    ],
    [
      "a tampered body",
      () => verify({ ...good, body: good.body.replace('"totalAmount":4250', '"totalAmount":1') }),
      { name: "SIGNATURE_MISMATCH", httpStatus: 401 },
    ],
    ["a delivery signed with another secret", () => verify(deliver(paidBody, { secret: "someone-elses-secret" })), { name: "SIGNATURE_MISMATCH", httpStatus: 401 }],
    ["another app's key when one is expected", () => verify(deliver(paidBody, { key: "other-app" }), { appKey }), { name: "APP_KEY_UNKNOWN", httpStatus: 401 }],
    ["a correctly signed body that is not JSON", () => verify(deliver("payment ok")), { name: "BODY_NOT_JSON", httpStatus: 400 }],
    [
      "a correctly signed body that is not UTF-8",
      () => {
        const bytes = Buffer.from([0x7b, 0xff, 0x7d]);
        return verify({ headers: signBytes(bytes), body: "" }, { rawBody: bytes });
      },
      { name: "BODY_NOT_JSON", httpStatus: 400 },
    ],
    [
      "a payload missing a required field",
      () => verify(deliver(JSON.stringify({ ...paid, data: { ...paid.data, outTradeNo: undefined } }))),
      { name: "PAYLOAD_INVALID", httpStatus: 400 },
    ],
    [
      "a payload with a field of the wrong type",
      () => verify(deliver(JSON.stringify({ ...paid, data: { ...paid.data, totalAmount: "4250" } }))),
      { name: "PAYLOAD_INVALID", httpStatus: 400 },
    ],
    [
      "a payload with an unknown field",
      () => verify(deliver(JSON.stringify({ ...paid, extra: 1 }))),
      { name: "PAYLOAD_INVALID", httpStatus: 400 },
    ],
    [
      "a payload with a malformed event id",
      () => verify(deliver(JSON.stringify({ ...paid, id: "123" }))),
      { name: "PAYLOAD_INVALID", httpStatus: 400 },
    ],
    [
      "a payload with an unknown event type",
      () => verify(deliver(JSON.stringify({ ...paid, type: "order.exploded" }))),
      { name: "EVENT_TYPE_UNKNOWN", httpStatus: 400 },
    ],
    ["a JSON array", () => verify(deliver("[1,2,3]")), { name: "PAYLOAD_INVALID", httpStatus: 400 }],
    ["a parsed object instead of the raw body", () => verify(good, { rawBody: paid as never }), { name: "INTERNAL_ERROR", httpStatus: 500 }],
    ["no usable secret", () => verify(good, { secrets: [] }), { name: "INTERNAL_ERROR", httpStatus: 500 }],
  ])("%s", async (_name, run, want) => {
    const result = (await run()) as { ok: boolean; name: string; code: number; message: string };
    expect(result).toMatchObject({ ok: false, ...want });
    expect(result.message.length).toBeGreaterThan(0);
    const registered = Object.values(SignedErrors).map((entry) => entry.code as number);
    expect(registered).toContain(result.code);
  });

  it("says which field of the payload is wrong", async () => {
    const result = await verify(deliver(JSON.stringify({ ...paid, data: { ...paid.data, totalAmount: 0 } })));
    expect(result).toMatchObject({ ok: false, code: SignedErrors.VALIDATION_FAILED.code });
    expect(!result.ok && result.message).toContain("/data/totalAmount");
  });

  it("checks the signature before looking at the body", async () => {
    const result = await verify({ ...deliver("not json"), body: "still not json" });
    expect(result).toMatchObject({ ok: false, name: "SIGNATURE_MISMATCH" });
  });
});
