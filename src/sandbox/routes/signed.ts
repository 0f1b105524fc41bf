// The signed open interface, mounted at /open-api (the spec's servers make it answer on both
// /open-api/v1 and /open-api): the server kit's signed router (src/server) over the sandbox's
// in-memory domain. Sandbox-only steps are the kit's options: the app lookup reads the store,
// refused signatures are described for the dashboard, and notifyUrl targets are checked after
// validation (notify-target.ts).
import type { RequestHandler } from "express";
import { createSignedRouter, requestState, toId, toOptionalId, type HandlerInput, type SignedHandlers } from "../../server/index.js";
import type { SandboxContext } from "../context.js";
import { explainMovedClock } from "../clock-refusal.js";
import { describeRefusal } from "../dashboard/refusal.js";
import { checkNotifyUrl } from "../notify-target.js";
import { answeringStoreOutages, answeringStoreOutagesIn } from "../store-guard.js";
import { faultStep } from "../faults/step.js";
import { requireApp } from "../domain/access.js";
import { syncCustomer } from "../domain/customers.js";
import { getMerchant, listMerchants } from "../domain/merchants.js";
import { listCardTemplates, purchaseMemberCard } from "../domain/member-cards.js";
import { cancelOrder, createOrder, getOrder, listOrderStatusHistory, payOrder, refundOrder, writeOffOrder } from "../domain/orders.js";
import { createCashierSession, queryPayment } from "../domain/payments.js";
import { getStore, getStoreBusinessHours, listNearbyStores, listStores } from "../domain/stores.js";
import type { OrderItemRecord } from "../store/types.js";

function orderItems(items: HandlerInput<"createOrder">["body"]["items"]): OrderItemRecord[] {
  return items.map((item) => ({
    itemType: item.itemType,
    itemId: toId(item.itemId),
    itemName: item.itemName,
    itemCoverUrl: item.itemCoverUrl ?? null,
    specValues: item.specValues ?? null,
    price: item.price,
    quantity: item.quantity,
  }));
}

/** Handlers by operationId: the validated input to the domain, its answer back. */
export function signedOperations(ctx: SandboxContext): SignedHandlers {
  const app = (input: { appKey: string }) => requireApp(ctx, input.appKey);
  return {
    syncCustomer: (input) => syncCustomer(ctx, app(input), input.body),
    createOrder: ({ body, ...input }) =>
      createOrder(ctx, app(input), {
        merchantId: toId(body.merchantId),
        storeId: toOptionalId(body.storeId),
        userId: toId(body.userId),
        orderType: body.orderType,
        couponId: toOptionalId(body.couponId),
        voucherIds: body.voucherIds,
        remark: body.remark,
        items: orderItems(body.items),
      }),
    getOrder: (input) => getOrder(ctx, app(input), input.path.orderId, input.query.merchantId),
    listOrderStatusHistory: (input) => listOrderStatusHistory(ctx, app(input), input.path.orderId, input.query.merchantId),
    payOrder: ({ body, ...input }) =>
      payOrder(ctx, app(input), input.path.orderId, { ...body, merchantId: toId(body.merchantId) }, input.origin),
    cancelOrder: ({ body, ...input }) => cancelOrder(ctx, app(input), input.path.orderId, { merchantId: toId(body.merchantId), reason: body.reason }),
    refundOrder: (input) => refundOrder(ctx, app(input), input.path.orderId, input.query.merchantId, input.body),
    writeOffOrder: ({ body, ...input }) =>
      writeOffOrder(ctx, app(input), input.path.orderId, input.query.merchantId, { storeId: toOptionalId(body?.storeId), remark: body?.remark }),
    createCashierSession: ({ body, ...input }) => createCashierSession(ctx, app(input), { ...body, merchantId: toId(body.merchantId) }, input.origin),
    queryPayment: (input) => queryPayment(ctx, app(input), input.query.tradeNo),
    purchaseMemberCard: ({ body, ...input }) =>
      purchaseMemberCard(ctx, app(input), {
        merchantId: toId(body.merchantId),
        templateId: toId(body.templateId),
        appUserId: toId(body.appUserId),
        tierId: toOptionalId(body.tierId),
      }),
    listCardTemplates: (input) => listCardTemplates(ctx, app(input), input.query),
    listMerchants: (input) => listMerchants(ctx, app(input), input.query),
    getMerchant: (input) => getMerchant(ctx, app(input), input.path.merchantId),
    listStores: (input) => listStores(ctx, app(input), input.query),
    listNearbyStores: (input) => listNearbyStores(ctx, app(input), input.query),
    getStore: (input) => getStore(ctx, app(input), input.path.storeId),
    getStoreBusinessHours: (input) => getStoreBusinessHours(ctx, app(input), input.path.storeId),
  };
}

export function signedRouter(ctx: SandboxContext): RequestHandler {
  return createSignedRouter({
    handlers: answeringStoreOutages(signedOperations(ctx)),
    apps: (appKey) => ctx.records.app(appKey),
    nonceStore: ctx.nonceStore,
    now: () => ctx.clock.now(),
    rateLimiter: ctx.rateLimiter,
    logger: ctx.logger,
    allowInsecureNotify: ctx.allowInsecureNotify,
    // A stale timestamp while the sandbox clock is moved says so; for the dashboard: what
    // arrived and the string the sandbox expected to be signed.
    onSignatureRefused: (refusal, req, res) => {
      explainMovedClock(refusal, ctx.clock);
      res.locals.signatureRefusal = describeRefusal(refusal, req.headers, requestState(res).rawBody);
    },
    // Faults meet only requests that pass every check before the operation, so they come last (faults/step.ts).
    checks: [checkNotifyUrl(ctx.notifyPolicy), answeringStoreOutagesIn(faultStep(ctx, "signed"), "signed")],
  });
}
