// The kit's steps, for the package's own parts built on it (the sandbox): not part of the public
// face (index.ts, the package's "./server" export), so they may change in any release. A part
// imports another through its index.ts, or through its internal.ts when it is one of the
// package's own (docs/architecture.md; test/contract/layers.unit.test.ts).
export { createOperationRouter, type OperationRouterOptions } from "./router.js";
export { pipeline } from "./pipeline.js";
export { sendAnswer, sendRaw, type AnswerWriter } from "./answer.js";
export { warmUpValidators, type DispatchHandler, type DispatchInput } from "./dispatch.js";
export { isJsonContentType } from "./body.js";
export { describeValidationErrors, LISTED_VALIDATION_ERRORS, toFailure, toKeyedName, type Failure } from "./errors.js";
export { logNonceStoreFailures, STORE_FAILURE_LOG_INTERVAL_MS } from "./nonce-store-log.js";
