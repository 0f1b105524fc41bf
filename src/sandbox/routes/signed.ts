// The signed open interface, mounted at /open-api (the spec's servers make it answer on both
// /open-api/v1 and /open-api). The pipeline, in order, one place each:
//   Content-Length over 1 MiB (100013) → signature headers, app key and timestamp window
//   before any body byte is read → raw body (1 MiB, 100013) → signature (100001-100005,
//   100010-100012) → rate limit (100006)
//   → content type (100014) → lossless JSON parse (100009) → exact res.json writer
//   → express-openapi-validator (requests 100009/100015/100016, responses) → exact body
//   → handler by operationId → one error handler (every error → envelope).
import type { RequestHandler } from "express";
import { precheckSignature, verifySignature } from "../auth.js";
import { captureRawBody, exactBodyAfterValidation, parseJsonBody, refuseOversizedBody, requireJson } from "../body.js";
import type { SandboxContext } from "../context.js";
import { checkNotifyUrl } from "../notify-target.js";
import { pipeline } from "../pipeline.js";
import { requireApp } from "../domain/access.js";
import { syncCustomer } from "../domain/customers.js";
import { getMerchant, listMerchants } from "../domain/merchants.js";
import { listCardTemplates, purchaseMemberCard } from "../domain/member-cards.js";
import { cancelOrder, createOrder, getOrder, listOrderStatusHistory, payOrder, refundOrder, writeOffOrder } from "../domain/orders.js";
import { createCashierSession, queryPayment } from "../domain/payments.js";
import { getStore, getStoreBusinessHours, listNearbyStores, listStores } from "../domain/stores.js";
import { envelopeErrorHandler, installExactJson } from "../envelope.js";
import { toId, toOptionalId } from "../int64.js";
import type { OrderItemRecord } from "../store/types.js";
import { dispatchOperations, pathNotFound, specValidator, type OperationCall, type OperationHandler } from "./dispatch.js";

function orderItems(items: Record<string, any>[]): OrderItemRecord[] {
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

/** Handlers by operationId: read the validated input, call the domain, return the data. */
export function signedOperations(ctx: SandboxContext): Record<string, OperationHandler> {
  const app = (call: OperationCall) => requireApp(ctx, call.res.locals.appKey as string);
  return {
    syncCustomer: (call) => syncCustomer(ctx, app(call), call.body as { openUserId: string }),
    createOrder: (call) =>
      createOrder(ctx, app(call), {
        merchantId: toId(call.body.merchantId),
        storeId: toOptionalId(call.body.storeId),
        userId: toId(call.body.userId),
        orderType: call.body.orderType,
        couponId: toOptionalId(call.body.couponId),
        voucherIds: call.body.voucherIds,
        remark: call.body.remark,
        items: orderItems(call.body.items),
      }),
    getOrder: (call) => getOrder(ctx, app(call), call.id("path", "orderId"), call.id("query", "merchantId")),
    listOrderStatusHistory: (call) => listOrderStatusHistory(ctx, app(call), call.id("path", "orderId"), call.id("query", "merchantId")),
    payOrder: (call) =>
      payOrder(ctx, app(call), call.id("path", "orderId"), {
        merchantId: toId(call.body.merchantId),
        notifyUrl: call.body.notifyUrl,
        returnUrl: call.body.returnUrl,
        expireMinutes: call.body.expireMinutes,
        attach: call.body.attach,
      }, call.origin),
    cancelOrder: (call) => cancelOrder(ctx, app(call), call.id("path", "orderId"), { merchantId: toId(call.body.merchantId), reason: call.body.reason }),
    refundOrder: (call) =>
      refundOrder(ctx, app(call), call.id("path", "orderId"), call.id("query", "merchantId"), { reason: call.body.reason, outRefundNo: call.body.outRefundNo }),
    writeOffOrder: (call) =>
      writeOffOrder(ctx, app(call), call.id("path", "orderId"), call.id("query", "merchantId"), { storeId: toOptionalId(call.body.storeId), remark: call.body.remark }),
    createCashierSession: (call) =>
      createCashierSession(ctx, app(call), {
        merchantId: toId(call.body.merchantId),
        outTradeNo: call.body.outTradeNo,
        totalAmount: call.body.totalAmount,
        subject: call.body.subject,
        body: call.body.body,
        notifyUrl: call.body.notifyUrl,
        returnUrl: call.body.returnUrl,
        expireMinutes: call.body.expireMinutes,
        attach: call.body.attach,
      }, call.origin),
    queryPayment: (call) => queryPayment(ctx, app(call), String(call.query.tradeNo)),
    purchaseMemberCard: (call) =>
      purchaseMemberCard(ctx, app(call), {
        merchantId: toId(call.body.merchantId),
        templateId: toId(call.body.templateId),
        appUserId: toId(call.body.appUserId),
        tierId: toOptionalId(call.body.tierId),
      }),
    listCardTemplates: (call) => listCardTemplates(ctx, app(call), { merchantId: call.optionalId("query", "merchantId"), pageNo: call.query.pageNo, pageSize: call.query.pageSize }),
    listMerchants: (call) => listMerchants(ctx, app(call), { pageNo: call.query.pageNo, pageSize: call.query.pageSize, name: call.query.name, status: call.query.status }),
    getMerchant: (call) => getMerchant(ctx, app(call), call.id("path", "merchantId")),
    listStores: (call) =>
      listStores(ctx, app(call), { pageNo: call.query.pageNo, pageSize: call.query.pageSize, merchantId: call.optionalId("query", "merchantId"), name: call.query.name }),
    listNearbyStores: (call) =>
      listNearbyStores(ctx, app(call), {
        latitude: call.query.latitude,
        longitude: call.query.longitude,
        radius: call.query.radius,
        merchantId: call.optionalId("query", "merchantId"),
        pageNo: call.query.pageNo,
        pageSize: call.query.pageSize,
      }),
    getStore: (call) => getStore(ctx, app(call), call.id("path", "storeId")),
    getStoreBusinessHours: (call) => getStoreBusinessHours(ctx, app(call), call.id("path", "storeId")),
  };
}

export function signedRouter(ctx: SandboxContext): RequestHandler {
  return pipeline(
    [
      refuseOversizedBody,
      precheckSignature(ctx),
      captureRawBody,
      verifySignature(ctx),
      requireJson,
      parseJsonBody({ allowInsecureNotify: ctx.allowInsecureNotify }),
      installExactJson("signed", ctx.logger),
      specValidator("signed"),
      exactBodyAfterValidation,
      checkNotifyUrl(ctx.notifyPolicy),
      dispatchOperations("signed", signedOperations(ctx)),
      pathNotFound,
    ],
    envelopeErrorHandler("signed", ctx.logger),
  );
}
