// The signed open interface, mounted at /open-api (the spec's servers make it answer on both
// /open-api/v1 and /open-api): the server kit's signed router (src/server) over the sandbox's
// in-memory domain. Sandbox-only steps are the kit's options: the app lookup reads the store,
// a refused signature's message says when the sandbox clock was moved, and notifyUrl targets are
// checked after validation (notify-target.ts). Handlers get the request's app and exact ids.
import type { RequestHandler } from "express";
import { createSignedRouter, type HandlerInput, type SignedHandlers } from "../../server/index.js";
import type { SandboxContext } from "../context.js";
import { explainMovedClock } from "../clock-refusal.js";
import { checkNotifyUrl } from "../notify-target.js";
import { answeringStoreOutages, answeringStoreOutagesIn } from "../store-guard.js";
import { faultStep } from "../faults/step.js";
import { syncCustomer } from "../domain/customers.js";
import { getMerchant, listMerchants } from "../domain/merchants.js";
import { listCardTemplates, purchaseMemberCard } from "../domain/member-cards.js";
import { cancelOrder, createOrder, getOrder, listOrderStatusHistory, payOrder, refundOrder, writeOffOrder } from "../domain/orders.js";
import { createCashierSession, queryPayment } from "../domain/payments.js";
import { getStore, getStoreBusinessHours, listNearbyStores, listStores } from "../domain/stores.js";
import type { AppRecord, OrderItemRecord } from "../store/types.js";

function orderItems(items: HandlerInput<"createOrder">["body"]["items"]): OrderItemRecord[] {
  return items.map((item) => ({
    itemType: item.itemType,
    itemId: item.itemId,
    itemName: item.itemName,
    itemCoverUrl: item.itemCoverUrl ?? null,
    specValues: item.specValues ?? null,
    price: item.price,
    quantity: item.quantity,
  }));
}

/** Handlers by operationId: the validated input to the domain, its answer back. */
export function signedOperations(ctx: SandboxContext): SignedHandlers<AppRecord> {
  // Each handler's app is the one the signature check looked up for the request.
  return {
    syncCustomer: (input) => syncCustomer(ctx, input.app, input.body),
    createOrder: ({ body, ...input }) =>
      createOrder(ctx, input.app, {
        merchantId: body.merchantId,
        storeId: body.storeId,
        userId: body.userId,
        orderType: body.orderType,
        couponId: body.couponId,
        voucherIds: body.voucherIds,
        remark: body.remark,
        items: orderItems(body.items),
      }),
    getOrder: (input) => getOrder(ctx, input.app, input.path.orderId, input.query.merchantId),
    listOrderStatusHistory: (input) => listOrderStatusHistory(ctx, input.app, input.path.orderId, input.query.merchantId),
    payOrder: ({ body, ...input }) =>
      payOrder(ctx, input.app, input.path.orderId, body, input.origin),
    cancelOrder: ({ body, ...input }) => cancelOrder(ctx, input.app, input.path.orderId, body),
    refundOrder: (input) => refundOrder(ctx, input.app, input.path.orderId, input.query.merchantId, input.body),
    writeOffOrder: ({ body, ...input }) =>
      writeOffOrder(ctx, input.app, input.path.orderId, input.query.merchantId, { storeId: body?.storeId, remark: body?.remark }),
    createCashierSession: ({ body, ...input }) => createCashierSession(ctx, input.app, body, input.origin),
    queryPayment: (input) => queryPayment(ctx, input.app, input.query.tradeNo),
    purchaseMemberCard: ({ body, ...input }) =>
      purchaseMemberCard(ctx, input.app, body),
    listCardTemplates: (input) => listCardTemplates(ctx, input.app, input.query),
    listMerchants: (input) => listMerchants(ctx, input.app, input.query),
    getMerchant: (input) => getMerchant(ctx, input.app, input.path.merchantId),
    listStores: (input) => listStores(ctx, input.app, input.query),
    listNearbyStores: (input) => listNearbyStores(ctx, input.app, input.query),
    getStore: (input) => getStore(ctx, input.app, input.path.storeId),
    getStoreBusinessHours: (input) => getStoreBusinessHours(ctx, input.app, input.path.storeId),
  };
}

export function signedRouter(ctx: SandboxContext): RequestHandler {
  return createSignedRouter<AppRecord>({
    handlers: answeringStoreOutages(signedOperations(ctx)),
    apps: (appKey) => ctx.records.app(appKey),
    nonceStore: ctx.nonceStore,
    now: () => ctx.clock.now(),
    rateLimiter: ctx.rateLimiter,
    logger: ctx.logger,
    allowInsecureNotify: ctx.allowInsecureNotify,
    // A stale timestamp while the sandbox clock is moved says so (the dashboard reads the
    // refusal from the request's summary).
    onSignatureRefused: (refusal) => explainMovedClock(refusal, ctx.clock),
    // Faults meet only requests that pass every check before the operation, so they come last (faults/step.ts).
    checks: [checkNotifyUrl(ctx.notifyPolicy), answeringStoreOutagesIn(faultStep(ctx, "signed"), "signed")],
  });
}
