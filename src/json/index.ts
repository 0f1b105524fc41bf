// int64-safe JSON helpers shared by the client, the callback helpers and the sandbox.
export { parseJsonLossless, stringifyJson, withBigIntsAsNumbers, type ParseJsonOptions } from "./lossless.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { JsonValueError } from "./errors.js";
export { JsonStructureError, MAX_JSON_DEPTH, type JsonStructureProblem } from "./structure.js";
export {
  bigIntsToNumbers,
  exactJsonText,
  inexactIntegers,
  int64AsNumbers,
  int64FieldsOf,
  INT64_MAX,
  INT64_MIN,
  parseIdText,
  readInt64Fields,
  restoreInt64,
  stringifyExactJson,
  toId,
  type ExactIntegers,
  type InexactInteger,
  type Int64Fields,
  type Int64Slots,
} from "./int64.js";
