// int64-safe JSON helpers shared by the client, the callback helpers and the sandbox.
export { parseJsonLossless, stringifyJson, withBigIntsAsNumbers, type ParseJsonOptions } from "./lossless.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { JsonValueError } from "./errors.js";
export { JsonStructureError, MAX_JSON_DEPTH, type JsonStructureProblem } from "./structure.js";
