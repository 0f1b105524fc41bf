// keyed.*: the key-based interface: bearer enforcement, envelope 200, pagination limits.
import { KeyedErrors } from "../../../generated/error-codes.js";
import type { CheckDefinition } from "../check.js";
import { CheckFailure } from "../errors.js";

const RULE = "source: Authentication, key-based variant; Endpoints, GET /v1/merchants; keyed spec";

export const keyedChecks: CheckDefinition[] = [
  {
    name: "keyed.bearer-required",
    tags: ["keyed"],
    purpose: "without an Authorization header, or with an unknown key, the list is refused with 401",
    rule: RULE,
    basis: [{ source: "Requests to /v1 carry Authorization: Bearer <API_KEY>" }],
    needs: ["keyed", "apiKey"],
    async run(ctx) {
      ctx.expectRefused(await ctx.keyed("listAccountMerchants", { apiKey: null }), KeyedErrors.KEYED_UNAUTHORIZED.code, RULE, "a request without Authorization");
      ctx.expectRefused(await ctx.keyed("listAccountMerchants", { apiKey: `mop-check-unknown-${ctx.runId}` }), KeyedErrors.KEYED_UNAUTHORIZED.code, RULE, "an unknown API key");
    },
  },
  {
    name: "keyed.list-conforms",
    tags: ["keyed", "responses"],
    purpose: "the merchant list answers envelope code 200 with string ids, and defaults to page 1 of 20",
    rule: RULE,
    basis: [{ operation: "listAccountMerchants", spec: "keyed" }, { source: "default page size 10 (signed variant lists and card templates), 20 (key-based list)" }],
    needs: ["keyed", "apiKey"],
    async run(ctx) {
      const answer = await ctx.keyed("listAccountMerchants");
      const data = ctx.expectSuccess(answer, RULE) as { pagination: { page: number; limit: number } };
      if (data.pagination.page !== 1 || data.pagination.limit !== 20) {
        throw new CheckFailure({ message: `without page/limit the answer is page ${data.pagination.page}, limit ${data.pagination.limit}`, expected: "page 1, limit 20 (source defaults)", rule: RULE, exchange: answer.exchange });
      }
    },
  },
  {
    name: "keyed.limit-maximum",
    tags: ["keyed", "validation"],
    purpose: "limit 100 is accepted and 101 refused with 400",
    rule: "source: Limits, limit maximum 100 (key-based merchant list)",
    basis: [{ source: "limit maximum 100 key-based merchant list" }, { field: { spec: "keyed", operationId: "listAccountMerchants", in: "query", name: "limit", keyword: "maximum" } }],
    needs: ["keyed", "apiKey"],
    async run(ctx) {
      ctx.expectSuccess(await ctx.keyed("listAccountMerchants", { query: { limit: 100 } }), RULE);
      ctx.expectRefused(await ctx.keyed("listAccountMerchants", { query: { limit: 101 } }), KeyedErrors.KEYED_VALIDATION_FAILED.code, RULE, "limit 101");
    },
  },
];
