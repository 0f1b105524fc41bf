// Type-level tests of the callback sender: an event's data is typed from its webhook in the spec.
import { describe, expectTypeOf, it } from "vitest";
import { createCallbackSender, type CallbackData, type CallbackEventType } from "../../src/server/index.js";

const sender = createCallbackSender({ apps: () => undefined });
const payment: CallbackData<"payment.succeeded"> = { tradeNo: "1", outTradeNo: "M-1", merchantId: 10001, totalAmount: 100, tradeStatus: "SUCCESS", payTime: "2026-11-22T10:17:02+08:00", attach: null };

describe("callback sender types", () => {
  it("knows the spec's event types", () => {
    expectTypeOf<CallbackEventType>().toEqualTypeOf<"payment.succeeded" | "member_card.application.approved" | "member_card.application.rejected">();
  });

  it("types each event's data from its webhook", () => {
    void sender.send({ type: "payment.succeeded", appKey: "a", targetUrl: "https://app.example/notify", data: payment });
    // @ts-expect-error tradeNo is a string of digits, not a number
    void sender.send({ type: "payment.succeeded", appKey: "a", targetUrl: "https://app.example/notify", data: { ...payment, tradeNo: 1 } });
    // @ts-expect-error a payment's data is not a member-card application's
    void sender.send({ type: "member_card.application.approved", appKey: "a", targetUrl: null, data: payment });
    // @ts-expect-error an event type the spec does not have
    void sender.send({ type: "payment.refunded", appKey: "a", targetUrl: null, data: payment });
  });
});
