// callbacks.*: the payment callback arrives signed, with the spec's payload and the attach
// byte for byte; a refused acknowledgement is retried with the same event id and a fresh signature.
import { verifySignedRequest } from "../../signing/index.js";
import { parseJsonLossless } from "../../json/index.js";
import { SignedErrors } from "../../../generated/error-codes.js";
import { SIGNATURE_WINDOW_SECONDS } from "../../contract/index.js";
import type { CheckDefinition } from "../check.js";
import { CheckFailure, CheckSkipped } from "../errors.js";
import type { CheckContext } from "../context.js";
import type { Delivery } from "../receiver.js";

const RULE = 'signed spec, webhooks.paymentSucceeded and info: "Callbacks during a secret rotation"; DESIGN item 8';
const ATTACH = '{"note":"Zoë \\"quoted\\" & <tag> 🍵","n":9007199254740993}';

interface PaymentEvent {
  id: string;
  type: string;
  data: { tradeNo: string; outTradeNo: string; totalAmount: number; attach: string | null };
}

async function verifyDelivery(ctx: CheckContext, delivery: Delivery, seenNonces: Set<string>): Promise<PaymentEvent> {
  const fail = (message: string, expected: string): never => {
    throw new CheckFailure({ message, expected, rule: RULE, exchange: { request: { method: "POST", url: ctx.receiver!.url, headers: delivery.headers, body: delivery.rawBody.toString("utf8") }, durationMs: 0 } });
  };
  const verification = await verifySignedRequest({ headers: delivery.headers, body: delivery.rawBody, secretsFor: (key) => (key === ctx.options.appKey ? ctx.options.appSecrets : undefined), windowSeconds: SIGNATURE_WINDOW_SECONDS });
  if (!verification.ok) fail(`the callback's signature does not verify: ${verification.message}`, `X-App-Key/X-Timestamp/X-Nonce/X-Sign over the raw body with one of the app's secrets (${ctx.options.appSecrets.length} given; pass every valid one with --app-secret during a rotation)`);
  const nonce = delivery.headers["x-nonce"]!;
  if (seenNonces.has(nonce)) fail(`a retry reused the nonce ${nonce}`, "a fresh timestamp and nonce on every attempt");
  seenNonces.add(nonce);
  let event: unknown;
  try {
    event = parseJsonLossless(delivery.rawBody.toString("utf8"));
  } catch {
    fail("the callback body is not JSON", "a JSON payload");
  }
  const problems = ctx.schemas.signed.validate("/webhooks/paymentSucceeded/post/requestBody/content/application~1json/schema", event);
  if (problems.length) fail(`the payload does not match the webhook schema: ${problems.join("; ")}`, "a payload valid against webhooks.paymentSucceeded");
  return event as PaymentEvent;
}

/** The server follows the contract (notifyUrl must be HTTPS): say how to give the check one. */
function httpRefusedReason(url: string): string {
  return (
    `the server refuses the receiver's http notifyUrl (${url}) with 100009, as the contract allows (notifyUrl must be HTTPS); ` +
    "give the receiver an HTTPS URL: --notify-url https://… of a TLS front (tunnel or reverse proxy) forwarding to --receiver-port, " +
    "or let the receiver serve TLS itself with --receiver-cert FILE --receiver-key FILE (a certificate the server trusts)"
  );
}

export const callbackChecks: CheckDefinition[] = [
  {
    name: "callbacks.payment-succeeded",
    tags: ["callbacks", "signed", "control"],
    purpose: "a paid trade's callback is signed, matches the spec with attach byte for byte, and a refused acknowledgement is retried with the same event id",
    rule: RULE,
    // The source: the callback "includes the attach value"; its signing, payload and retries are designed.
    basis: [{ source: "includes the attach value given at creation" }, { decision: "Callbacks" }],
    needs: ["signed", "control", "receiver"],
    async run(ctx) {
      const control = ctx.requireControl();
      const receiver = ctx.requireReceiver();
      const body = await ctx.resources.cashierBody({ attach: ATTACH, totalAmount: 4321, notifyUrl: receiver.url });
      const created = await ctx.signed("createCashierSession", { body });
      if (created.verdict.code === SignedErrors.VALIDATION_FAILED.code && /^http:/i.test(receiver.url)) throw new CheckSkipped(httpRefusedReason(receiver.url));
      const session = ctx.expectSuccess(created, RULE) as { tradeNo: string };
      const ours = (d: Pick<Delivery, "rawBody">) => d.rawBody.includes(session.tradeNo);
      // Refuse the first delivery of this trade's event, acknowledge the later ones.
      receiver.respondWith((delivery, index) => (ours(delivery) && !receiver.deliveries.slice(0, index).some(ours) ? 500 : 200));
      await control.payTrade(session.tradeNo);
      const deliveries = await receiver.waitFor(ours, 2, ctx.options.callbackWaitMs);
      if (deliveries.length === 0) throw new CheckFailure({ message: `no callback arrived within ${ctx.options.callbackWaitMs} ms of the payment`, expected: "a payment.succeeded callback at notifyUrl", rule: RULE });
      const nonces = new Set<string>();
      const first = await verifyDelivery(ctx, deliveries[0]!, nonces);
      if (first.type !== "payment.succeeded" || first.data.tradeNo !== session.tradeNo || first.data.outTradeNo !== body.outTradeNo || first.data.totalAmount !== 4321) {
        throw new CheckFailure({ message: `the payload says ${JSON.stringify({ type: first.type, tradeNo: first.data.tradeNo, outTradeNo: first.data.outTradeNo, totalAmount: first.data.totalAmount })}`, expected: `payment.succeeded for ${session.tradeNo}, ${String(body.outTradeNo)}, 4321`, rule: RULE });
      }
      if (first.data.attach !== ATTACH) throw new CheckFailure({ message: `attach arrived as ${JSON.stringify(first.data.attach)}`, expected: `attach byte for byte: ${JSON.stringify(ATTACH)}`, rule: RULE });
      if (deliveries.length < 2) throw new CheckFailure({ message: `the refused callback was not retried within ${ctx.options.callbackWaitMs} ms`, expected: "a retry after a 500 answer (at least once delivery)", rule: RULE });
      const retry = await verifyDelivery(ctx, deliveries[1]!, nonces);
      if (retry.id !== first.id) throw new CheckFailure({ message: `the retry has event id ${retry.id}, the first attempt ${first.id}`, expected: "the same event id on every attempt", rule: RULE });
      // After the acknowledgement nothing more may arrive for this event.
      const gap = Math.max(500, deliveries[1]!.receivedAt - deliveries[0]!.receivedAt);
      const after = await receiver.waitFor(ours, 3, Math.min(gap * 2, 3000));
      if (after.length > 2) throw new CheckFailure({ message: `the event was delivered ${after.length} times although the second attempt was acknowledged`, expected: "no delivery after an acknowledgement", rule: RULE });
    },
  },
];
