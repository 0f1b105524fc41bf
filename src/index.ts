/**
 * merchant-open-platform: the typed signing client, the signing functions, callback
 * verification, lossless JSON for int64 ids and the error registry. The sandbox, the
 * conformance checker and the proxy have their own entry points
 * (merchant-open-platform/sandbox, /conformance, /proxy); the sandbox needs the optional peers
 * express and express-openapi-validator.
 *
 * @example
 * ```ts
 * import { createSignedClient, stringifyJson } from "merchant-open-platform";
 *
 * const client = createSignedClient({ baseUrl: "http://127.0.0.1:4010/open-api/v1", appKey, appSecret });
 * const orderId = await client.call("createOrder", { body: { ... } }); // bigint above 2^53
 * console.log(stringifyJson({ orderId })); // JSON.stringify would throw on the bigint
 * ```
 *
 * @packageDocumentation
 */
export * from "./client/index.js";
export * from "./signing/index.js";
export * from "./callbacks/index.js";
export { FieldConfigError, MerchantOpenPlatformError, PeerDependencyMissingError } from "./errors.js";
export { JsonStructureError, JsonValueError, parseJsonLossless, stringifyJson } from "./json/index.js";
export * from "../generated/error-codes.js";
export type { components as SignedComponents, operations as SignedOperations, paths as SignedPaths, webhooks as SignedWebhooks } from "../generated/signed.js";
export type { components as KeyedComponents, operations as KeyedOperations, paths as KeyedPaths } from "../generated/keyed.js";
