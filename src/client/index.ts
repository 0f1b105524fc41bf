// The typed client of the Merchant Open Platform: openapi-fetch over the generated types, with
// request signing (or the bearer key), int64-safe JSON, envelope unwrapping into typed errors,
// timeouts, retries of safe calls and a page iterator.
export { createSignedClient, SIGNED_IDEMPOTENT_OPERATIONS, type SignedClient, type SignedClientOptions } from "./signed.js";
export { createKeyedClient, type KeyedClient, type KeyedClientOptions } from "./keyed.js";
export {
  paginate,
  type KeyedListOperationId,
  type ListItem,
  type ListQuery,
  type PaginateArgs,
  type PaginateOptions,
  type SignedListOperationId,
} from "./paginate.js";
export {
  ApiError,
  ClientConfigError,
  MerchantOpenPlatformError,
  NetworkError,
  RedirectError,
  ResponseTooLargeError,
  TimeoutError,
  UnexpectedResponseError,
  type ApiErrorEntry,
} from "./errors.js";
export { bearerMiddleware, createRequestSigner, signingMiddleware, type SigningMiddlewareOptions } from "./middleware.js";
export {
  createLosslessFetch,
  createSigningFetch,
  losslessFetch,
  LosslessJsonResponse,
  type LosslessFetchOptions,
  type SigningFetchOptions,
  type StandardFetch,
} from "./lossless-fetch.js";
export { LosslessResponse } from "./transport.js";
export { backoffDelay, parseRetryAfter, RETRYABLE_HTTP_STATUSES } from "./retry.js";
export { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_TIMEOUT_MS, type FetchLike, type RetryOptions } from "./options.js";
export type { OperationArgs, OperationData, OperationInit, SuccessEnvelope } from "./operations.js";
