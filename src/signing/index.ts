// The signing part of the contract: pure functions to build and check the four signature
// headers of the signed open interface (source "Authentication", DESIGN item 6). No HTTP here;
// the client, the sandbox and the callback helpers build on these.
export { MerchantOpenPlatformError, PeerDependencyMissingError } from "../errors.js";
export { NonceStoreUnavailableError, SigningInputError } from "./errors.js";
export {
  DEFAULT_WINDOW_SECONDS,
  NONCE_PATTERN,
  SIGN_PATTERN,
  SIGNATURE_HEADERS,
  TIMESTAMP_PATTERN,
  nonceProblem,
  signProblem,
  timestampProblem,
  type SignatureHeaderName,
} from "./rules.js";
export {
  stringToSign,
  stringToSignBytes,
  type SigningBody,
  type SigningTimestamp,
} from "./string-to-sign.js";
export {
  sign,
  signRequestHeaders,
  type SignInput,
  type SignRequestInput,
  type SignedRequestHeaders,
} from "./sign.js";
export { readHeader, type HeaderValue, type RequestHeaders } from "./headers.js";
export {
  createMemoryNonceStore,
  type MemoryNonceStore,
  type MemoryNonceStoreOptions,
  type NonceStore,
  type NonceUse,
} from "./nonce-store.js";
export { createRedisNonceStore, redactUrl, type RedisNonceStore, type RedisNonceStoreOptions } from "./redis-nonce-store.js";
export {
  precheckForVerification,
  precheckSignedRequest,
  verifyPrecheckedRequest,
  verifySignedRequest,
  type PrecheckedRequest,
  type PrecheckSignedRequestInput,
  type SecretsLookup,
  type SignatureFailure,
  type SignatureFailureName,
  type SignaturePrecheck,
  type SignatureSuccess,
  type SignatureVerification,
  type VerifySignedRequestInput,
} from "./verify.js";
