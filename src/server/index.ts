// merchant-open-platform/server: a kit for a platform team implementing the interface for
// real. Typed handlers by operationId, an app lookup, a nonce store and a logger in; Express
// request handlers out, with the signature, validation, envelopes and int64 JSON done once
// (docs/server.md). The sandbox is this kit plus its in-memory domain.
export { createKeyedRouter, createOperationRouter, createSignedRouter, type KeyedRouterOptions, type OperationRouterOptions, type SignedRouterOptions } from "./router.js";
export type {
  ExactId,
  Handler,
  HandlerInput,
  HandlerOutput,
  HandlerResult,
  KeyedErrorNameOf,
  KeyedHandlerResult,
  Refuse,
  SignedErrorNameOf,
  KeyedHandler,
  KeyedHandlerInput,
  KeyedHandlerOutput,
  KeyedHandlers,
  KeyedOperationId,
  KeyedRequestFacts,
  OperationHandlers,
  OperationInput,
  RequestBodyOf,
  RequestFacts,
  ResponseDataOf,
  SignedHandlers,
  SignedOperationId,
  SignedRequestFacts,
} from "./handlers.js";
export { createRateLimiter, type ApiKeyAccount, type ApiKeyLookup, type AppLookup, type RateLimiter, type ServerApp } from "./auth.js";
export { RefusalError, describeValidationErrors, keyedError, LISTED_VALIDATION_ERRORS, ServerConfigError, signedError, toFailure, toKeyedName, type Failure, type KeyedErrorName, type SignedErrorName } from "./errors.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { createStderrLogger, pinoServerLogger, serverLogger, stderrLogger, type LevelledLogger, type LogDetails, type LogLevel, type PinoLike, type ServerLogger } from "./logger.js";
export { logNonceStoreFailures, STORE_FAILURE_LOG_INTERVAL_MS } from "./nonce-store-log.js";
export {
  CALLBACK_TIMEOUT_MS,
  CallbackPayloadError,
  createCallbackSender,
  DEFAULT_CALLBACK_SCHEDULE_MS,
  formatUtcSeconds,
  newEventId,
  RESPONSE_BODY_KEPT_BYTES,
  type CallbackAppLookup,
  type CallbackInput,
  type CallbackSender,
  type CallbackSenderOptions,
  type PreparedCallback,
  type ResendResult,
} from "./callback-sender.js";
export { createMemoryCallbackOutbox, type CallbackAttempt, type CallbackDelivery, type CallbackOutbox, type MaybePromise, type MemoryCallbackOutbox } from "./callback-outbox.js";
export type { CallbackData, CallbackEventType, CallbackPayload } from "./callback-types.js";
export { createTestHooksRouter, type ControlHandlers, type ControlOperationId, type TestHooks, type TestHooksOptions } from "./test-hooks.js";
export { requestState, type RequestState } from "./state.js";
export { BODY_LIMIT_BYTES, isJsonContentType } from "./body.js";
export { sendAnswer, sendRaw } from "./answer.js";
export { warmUpValidators, type DispatchHandler, type DispatchInput } from "./dispatch.js";
export { pipeline } from "./pipeline.js";
export { int64Overflows, parseExactJson, parseIdText, stringifyExactJson, toId, toNumberCopy, toOptionalId } from "./ids.js";
export { createMemoryNonceStore, createRedisNonceStore, type NonceStore } from "../signing/index.js";
