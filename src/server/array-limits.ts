// Arrays over their spec's maxItems are refused right after routing, before the validator
// lists every error of every item (contract/array-limits.ts says why). The limits of each
// operation's request body are read from the loaded spec once.
import type { Request } from "express";
import { describeOversizeArray, findOversizeArrays, requestBodyArrayLimits, type ArrayLimits, type OpenApiDocument } from "../contract/index.js";
import { signedError } from "./errors.js";

/** For the operation the validator matched (req.openapi.schema), throws 100009 naming the first array over its maxItems. */
export function createArrayLimitCheck(document: OpenApiDocument): (req: Request) => void {
  const byOperation = new WeakMap<object, ArrayLimits | null>();
  return (req) => {
    const operation = (req as Request & { openapi?: { schema?: unknown } }).openapi?.schema;
    if (typeof operation !== "object" || operation === null || req.body === undefined) return;
    let limits = byOperation.get(operation);
    if (limits === undefined) {
      limits = requestBodyArrayLimits(document, operation) ?? null;
      byOperation.set(operation, limits);
    }
    if (limits === null) return;
    const [oversize] = findOversizeArrays(limits, req.body, { first: true });
    if (oversize) throw signedError("VALIDATION_FAILED", describeOversizeArray(oversize));
  };
}
