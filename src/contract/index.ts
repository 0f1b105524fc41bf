// The contract at run time, below every part that serves, checks or relays the API (sandbox,
// server kit, proxy, checker, callback verifier): the bundled specs loaded once, one Ajv set-up,
// JSON pointers, the route table, the array limits, the envelope dialects, the judge of an
// answer and the signature window. It reads the spec; it restates none of it.
export { bundlePath, loadBundle, type OpenApiDocument, type SpecName } from "./bundles.js";
export { atPointer, deref, escapePointer, resolvePointer, unescapePointer } from "./pointer.js";
export { createAjv, describeSchemaError, type ErrorObject, type ValidateFunction } from "./ajv.js";
export { schemasFor, SpecSchemas, type OperationLocation, type OperationParameter, type WebhookLocation } from "./schemas.js";
export { compilePathTemplate, readPathParams, RouteTable, type PathTemplate, type PathTemplateOptions, type RouteMatch } from "./routes.js";
export { operationRoutes, type OperationRoute, type OperationRouteLookup } from "./operation-routes.js";
export { arrayLimitsOf, describeOversizeArray, findOversizeArrays, requestBodyArrayLimits, type ArrayLimits, type OversizeArray } from "./array-limits.js";
export { ENVELOPE_DIALECTS, envelopeCode, failureEnvelope, isSuccessCode, successEnvelope, type Dialect, type EnvelopeDialect } from "./envelope.js";
export { judgeAnswer, type ReceivedAnswer, type Verdict } from "./judge.js";
/** How far X-Timestamp may be from the server's clock, each way (source: Authentication). */
export { DEFAULT_WINDOW_SECONDS as SIGNATURE_WINDOW_SECONDS } from "../signing/index.js";
export { MerchantOpenPlatformError } from "../errors.js";
