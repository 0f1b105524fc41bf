// merchant-open-platform: the typed signing client, the signing functions, callback
// verification and the error registry. The sandbox, the conformance checker and the proxy
// have their own entry points (merchant-open-platform/sandbox, /conformance, /proxy).
export * from "./client/index.js";
export * from "./signing/index.js";
export * from "./callbacks/index.js";
export { parseJsonLossless, stringifyJson } from "./json/index.js";
export * from "../generated/error-codes.js";
export type { components as SignedComponents, operations as SignedOperations, paths as SignedPaths, webhooks as SignedWebhooks } from "../generated/signed.js";
export type { components as KeyedComponents, operations as KeyedOperations, paths as KeyedPaths } from "../generated/keyed.js";
