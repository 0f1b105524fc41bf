// int64-safe JSON helpers shared by the client, the callback helpers and the sandbox.
export { parseJsonLossless, stringifyJson, withBigIntsAsNumbers } from "./lossless.js";
