// The test events and delivery variants of src/callbacks/test-deliveries.ts, judged by the
// package's own verifier (verifyCallback): each variant fails or passes verification for the
// reason it claims, and the well-formed event of every webhook passes its schema.
import { describe, expect, it } from "vitest";
import { CALLBACK_VARIANTS, callbackEventTypes, expectedAnswer, testDelivery, testEventBody, verifyCallback } from "../../src/callbacks/index.js";
import { parseJsonLossless } from "../../src/json/index.js";
import { createMemoryNonceStore } from "../../src/signing/index.js";
import { loadBundle } from "../../src/contract/index.js";

const NOW = Date.parse("2026-11-22T02:15:30Z");
const input = (body: string) => ({ appKey: "demo-app-key", appSecret: "demo-app-secret", body, now: () => NOW });

async function verify(delivery: { headers: Record<string, string>; body: string }) {
  return verifyCallback({ headers: delivery.headers, rawBody: delivery.body, secrets: ["demo-app-secret"], appKey: "demo-app-key", now: () => NOW, nonceStore: createMemoryNonceStore() });
}

describe("testEventBody", () => {
  it.each(callbackEventTypes())("%s: the webhook's example with a fresh id and time, valid against its schema", async (type) => {
    const body = testEventBody(type, { now: () => NOW });
    const event = parseJsonLossless(body) as { id: string; type: string; createTime: string };
    expect(event.type).toBe(type);
    expect(event.id).toMatch(/^evt_[A-Za-z0-9]{24}$/);
    expect(event.createTime).toBe("2026-11-22T10:15:30+08:00");
    expect(testEventBody(type)).not.toContain(event.id);
    expect((await verify(testDelivery("exact", input(body)))).ok).toBe(true);
  });

  it("refuses an event type no webhook sends, and data that breaks the schema", () => {
    expect(() => testEventBody("payment.refunded")).toThrow(/no webhook of the signed spec sends "payment\.refunded"/);
    expect(() => testEventBody("payment.succeeded", { data: { tradeStatus: "PAID" } })).toThrow(/tradeStatus/);
  });
});

describe("testDelivery", () => {
  const body = testEventBody("payment.succeeded", { now: () => NOW, data: { merchantId: 9007199254740993n } });

  it("are the variants the control spec's redeliverCallback takes", () => {
    expect(loadBundle("sandbox-control").components.schemas.CallbackVariant.enum).toEqual([...CALLBACK_VARIANTS]);
  });

  it.each([
    ["exact", true, undefined],
    ["reordered-fields", true, undefined],
    ["tampered-body", false, "SIGNATURE_MISMATCH"],
    ["wrong-secret", false, "SIGNATURE_MISMATCH"],
    ["stale-timestamp", false, "TIMESTAMP_OUT_OF_WINDOW"],
  ] as const)("%s: verifies %s", async (variant, ok, failure) => {
    const delivery = testDelivery(variant, input(body));
    expect(delivery.expected).toBe(expectedAnswer(variant));
    expect(delivery.expected === "acknowledged").toBe(ok);
    const verdict = await verify(delivery);
    expect(verdict.ok).toBe(ok);
    if (!verdict.ok) expect(verdict.name).toBe(failure);
  });

  it("tampered-body changes the amount by one digit: same length, still JSON", () => {
    const { body: tampered } = testDelivery("tampered-body", input(body));
    expect(tampered).not.toBe(body);
    expect(tampered).toHaveLength(body.length);
    const before = parseJsonLossless(body) as { data: { totalAmount: number } };
    const after = parseJsonLossless(tampered) as { data: { totalAmount: number } };
    expect(after.data.totalAmount).not.toBe(before.data.totalAmount);
  });

  it("reordered-fields is the same JSON value in other bytes, ids above 2^53 exact", () => {
    const { body: reordered } = testDelivery("reordered-fields", input(body));
    expect(reordered).not.toBe(body);
    expect(parseJsonLossless(reordered)).toEqual(parseJsonLossless(body));
    expect(reordered).toContain('"merchantId":9007199254740993');
    expect(reordered.indexOf('"data"')).toBeLessThan(reordered.indexOf('"id"'));
  });
});
