// signature.*: the server refuses every kind of bad signature with its registry code, and
// accepts a correct one whose body has non-ASCII text.
import { SignedErrors } from "../../../generated/error-codes.js";
import { randomUUID } from "node:crypto";
import { sign } from "../../signing/index.js";
import type { CheckDefinition, RuleBasis } from "../check.js";
import { CheckFailure } from "../errors.js";
import type { CheckContext } from "../context.js";
import { describeSkew, windowProbeOffsets } from "../clock.js";
import type { SignatureTamper } from "../requests.js";

const RULE = "source: Authentication, signature rules 1-6; DESIGN item 6; docs/signing.md";
const nowSeconds = () => Math.floor(Date.now() / 1000);
const aimed = (ctx: CheckContext) => (ctx.clock?.aimSeconds ? ` (aimed at the server's clock, ${describeSkew(ctx.clock.aimSeconds * 1000)})` : "");

/** A GET (empty body) and a POST (JSON body) must both be refused. */
async function expectBothRefused(ctx: CheckContext, tamper: () => SignatureTamper, code: number, why: string): Promise<void> {
  const merchantId = await ctx.resources.merchantId();
  ctx.expectRefused(await ctx.signed("listStores", { query: { merchantId }, tamper: tamper() }), code, RULE, `a GET with ${why}`);
  ctx.expectRefused(await ctx.signed("syncCustomer", { body: { openUserId: ctx.resources.unique("sig") }, tamper: tamper() }), code, RULE, `a POST with ${why}`);
}

function check(name: string, purpose: string, basis: RuleBasis[], run: CheckDefinition["run"]): CheckDefinition {
  return { name: `signature.${name}`, tags: ["signature", "signed"], purpose, rule: RULE, basis, needs: ["signed"], run };
}

// What each rule rests on: a rule of the source's Authentication section, or the contract's
// signature freshness (the window and the nonce, "not shown" in the source).
const FRESHNESS: RuleBasis[] = [{ decision: "Signature freshness" }];

export const signatureChecks: CheckDefinition[] = [
  check("missing-header", "a request without any one of the four signature headers is refused with 100001", [{ source: "Every authenticated request carries these headers" }], async (ctx) => {
    for (const header of ["X-App-Key", "X-Timestamp", "X-Nonce", "X-Sign"] as const) {
      await expectBothRefused(ctx, () => ({ omitHeader: header }), SignedErrors.SIGNATURE_HEADER_MISSING.code, `no ${header} header`);
    }
  }),
  check("unknown-app-key", "an unknown X-App-Key is refused with 100002", [{ source: "application identifier" }], (ctx) =>
    expectBothRefused(ctx, () => ({ appKey: `mop-check-unknown-${ctx.runId}` }), SignedErrors.APP_KEY_UNKNOWN.code, "an unknown app key"),
  ),
  check("hex-signature", "a hexadecimal X-Sign is refused with 100012 (rule 4: Base64)", [{ source: "The binary result is encoded as Base64 (not hexadecimal)" }], (ctx) =>
    expectBothRefused(ctx, () => ({ sign: ({ hex }) => hex }), SignedErrors.SIGNATURE_MALFORMED.code, "a hex signature"),
  ),
  check("millisecond-timestamp", "a 13-digit millisecond X-Timestamp is refused with 100010", [{ source: "a millisecond timestamp" }], (ctx) =>
    expectBothRefused(ctx, () => ({ timestamp: String(Date.now()) }), SignedErrors.TIMESTAMP_MALFORMED.code, "a millisecond timestamp"),
  ),
  // Aimed at the server's clock when it is measurably off (within the window), so a small skew
  // is not misread as a wrong window.
  check("stale-timestamp", "a timestamp 301 s in the past is refused with 100004", FRESHNESS, (ctx) => {
    const { staleSeconds } = windowProbeOffsets(ctx.clock);
    return expectBothRefused(ctx, () => ({ timestamp: String(nowSeconds() + staleSeconds) }), SignedErrors.TIMESTAMP_OUT_OF_WINDOW.code, `a timestamp ${-staleSeconds} s before this machine's clock${aimed(ctx)}`);
  }),
  check("future-timestamp", "a timestamp 310 s in the future is refused with 100004", FRESHNESS, (ctx) => {
    const { futureSeconds } = windowProbeOffsets(ctx.clock);
    return expectBothRefused(ctx, () => ({ timestamp: String(nowSeconds() + futureSeconds) }), SignedErrors.TIMESTAMP_OUT_OF_WINDOW.code, `a timestamp ${futureSeconds} s after this machine's clock${aimed(ctx)}`);
  }),
  check("reused-nonce", "a nonce used once is refused the second time with 100005", FRESHNESS, async (ctx) => {
    const merchantId = await ctx.resources.merchantId();
    const nonce = `chk${randomUUID().replace(/-/g, "")}`;
    ctx.expectSuccess(await ctx.signed("listStores", { query: { merchantId }, tamper: { nonce } }), RULE);
    ctx.expectRefused(await ctx.signed("listStores", { query: { merchantId }, tamper: { nonce } }), SignedErrors.NONCE_REUSED.code, RULE, "a reused nonce");
  }),
  check("tampered-body", "a body changed after signing is refused with 100003 (rule 2)", [{ source: "a changed body text" }], async (ctx) => {
    const openUserId = ctx.resources.unique("tamper");
    const signedBody = JSON.stringify({ openUserId: `${openUserId}-original` });
    ctx.expectRefused(await ctx.signed("syncCustomer", { body: { openUserId }, tamper: { signedBody } }), SignedErrors.SIGNATURE_MISMATCH.code, RULE, "a tampered body");
  }),
  check("tampered-body-same-length", "a body changed after signing without changing its length is refused with 100003 (the HMAC covers every byte)", [{ source: "a changed body text" }], async (ctx) => {
    const openUserId = ctx.resources.unique("tamper-same");
    const sent = JSON.stringify({ openUserId: `${openUserId}-a` });
    const signedBody = JSON.stringify({ openUserId: `${openUserId}-b` });
    ctx.expectRefused(await ctx.signed("syncCustomer", { body: sent, tamper: { signedBody } }), SignedErrors.SIGNATURE_MISMATCH.code, RULE, "a body changed after signing (same length)");
  }),
  check("before-routing", "a bad signature gets the same answer on a known and an unknown path: the signature is checked before routing, so nothing about routes leaks", [{ decision: "signature before routing" }], async (ctx) => {
    const merchantId = await ctx.resources.merchantId();
    const unknownPath = `/mop-check-no-such-path-${ctx.runId}`;
    const cases: Array<[string, SignatureTamper, number]> = [
      ["no X-Sign header", { omitHeader: "X-Sign" }, SignedErrors.SIGNATURE_HEADER_MISSING.code],
      ["a signature under a wrong secret", { secret: `${ctx.options.appSecret}-wrong` }, SignedErrors.SIGNATURE_MISMATCH.code],
    ];
    for (const [why, tamper, code] of cases) {
      const known = await ctx.signed("listStores", { query: { merchantId }, tamper });
      ctx.expectRefused(known, code, RULE, `a GET of a known path with ${why}`);
      const unknown = await ctx.signedToPath("GET", unknownPath, { query: { merchantId }, tamper });
      const answered = (unknown.response?.json as { code?: unknown } | undefined)?.code;
      if (!unknown.response || Number(answered) !== code || unknown.response.status !== known.exchange.response!.status) {
        throw new CheckFailure({
          message: `with ${why}, the known path answered code ${code} (HTTP ${known.exchange.response!.status}) but the unknown path ${unknown.response ? `code ${String(answered)} (HTTP ${unknown.response.status})` : `nothing (${unknown.error})`}: routing was decided before the signature`,
          expected: `the same refusal, code ${code} with HTTP ${known.exchange.response!.status}, on both paths`,
          rule: `${RULE}; signed spec, info, rules every implementation follows: "Signature before routing"`,
          exchange: unknown,
        });
      }
    }
  }),
  check("wrong-secret", "a request signed with another secret is refused with 100003 (rule 3)", [{ source: "a wrong or reset secret" }], (ctx) =>
    expectBothRefused(ctx, () => ({ secret: `${ctx.options.appSecret}-wrong` }), SignedErrors.SIGNATURE_MISMATCH.code, "a signature under a wrong secret"),
  ),
  check("separators", "a signature over fields joined with separators is refused with 100003 (rule 1)", [{ source: "added separators" }], async (ctx) => {
    const merchantId = await ctx.resources.merchantId();
    const timestamp = String(nowSeconds());
    const nonce = `chk${randomUUID().replace(/-/g, "")}`;
    // The faulty client signs "appKey&timestamp&nonce" but sends the plain headers.
    const wrong = sign({ appKey: `${ctx.options.appKey}&`, appSecret: ctx.options.appSecret, timestamp: `${timestamp}&`, nonce, body: "" });
    ctx.expectRefused(await ctx.signed("listStores", { query: { merchantId }, tamper: { timestamp, nonce, sign: () => wrong } }), SignedErrors.SIGNATURE_MISMATCH.code, RULE, "a signature over separated fields");
  }),
  check(
    "body-on-bodyless-operation",
    "a correctly signed GET that carries a body is refused with 100009, before its nonce is used: the end of a used GET's nonce moved into a body cannot replay it",
    [{ decision: "an operation without a request body refuses any body" }],
    async (ctx) => {
      const rule = `${RULE}; DESIGN item 15: an operation without a request body refuses any body (100009) inside the signature check, before the nonce is recorded`;
      const query = { merchantId: await ctx.resources.merchantId() };
      const timestamp = String(nowSeconds());
      const nonce = `chk${randomUUID().replace(/-/g, "")}`;
      // 1. A used GET: nonce N + "2", no body, answered with data.
      ctx.expectSuccess(await ctx.signed("listStores", { query, tamper: { timestamp, nonce: `${nonce}2` } }), rule);
      // 2. The attack: the same timestamp, nonce N and the body "2". The string to sign is the
      //    same (appKey + timestamp + N + "2"), so the captured X-Sign verifies.
      const replay = await ctx.signed("listStores", { query, body: "2", tamper: { timestamp, nonce } });
      if (replay.verdict.success) {
        throw new CheckFailure({
          message: "a used GET was replayed by moving the last character of its nonce into a body, and answered with data: the string to sign was the same",
          expected: `refusal with code ${SignedErrors.VALIDATION_FAILED.code}: an operation without a request body refuses any body`,
          rule,
          exchange: replay.exchange,
        });
      }
      ctx.expectRefused(replay, SignedErrors.VALIDATION_FAILED.code, rule, "a GET carrying the body \"2\" (the end of a used nonce)");
      // 3. Any correctly signed body on an operation without one.
      ctx.expectRefused(await ctx.signed("listStores", { query, body: "{}" }), SignedErrors.VALIDATION_FAILED.code, rule, "a correctly signed GET carrying the body {}");
      // 4. The refusal came before the nonce was recorded: N still signs one proper GET.
      const after = await ctx.signed("listStores", { query, tamper: { timestamp: String(nowSeconds()), nonce } });
      if (!after.verdict.success) {
        throw new CheckFailure({
          message: `after the refused GET with a body, a proper GET with its nonce was ${after.verdict.code === SignedErrors.NONCE_REUSED.code ? "refused as a reused nonce: the refusal recorded the nonce" : `refused with ${after.verdict.code ?? "no code"}`}`,
          expected: "the nonce still unused (the body is refused before the nonce is recorded, so a forged request burns nothing)",
          rule,
          exchange: after.exchange,
        });
      }
    },
  ),
  check("non-ascii-body", "a correctly signed body with Chinese text and an emoji is accepted (UTF-8)", [{ source: "all strings are UTF-8" }], async (ctx) => {
    ctx.expectSuccess(await ctx.signed("syncCustomer", { body: { openUserId: ctx.resources.unique("utf8"), nickname: "张三 🍵 Zoë" } }), RULE);
  }),
];
