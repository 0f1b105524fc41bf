// merchant-open-platform/server: a kit for a platform team implementing the interface for
// real. Typed handlers by operationId, an app lookup, a nonce store and a logger in; Express
// request handlers out, with the signature, validation, envelopes and int64 JSON done once
// (docs/server.md). The sandbox is this kit plus its in-memory domain.
//
// This file is the kit's public face: every name here is documented in docs/server.md and kept
// across minor versions. The steps the kit is built from (the pipeline, the answer writer, the
// operation router over any spec) are in internal.ts, for the package's own parts (the sandbox);
// names that left this face are listed in CHANGELOG.md.
export { createKeyedRouter, createSignedRouter, type KeyedRouterOptions, type SignedRouterOptions } from "./router.js";
export type {
  ExactId,
  ExactIdsIn,
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
export { RefusalError, keyedError, ServerConfigError, signedError, type KeyedErrorName, type SignedErrorName } from "./errors.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { createStderrLogger, pinoServerLogger, serverLogger, stderrLogger, type LevelledLogger, type LogDetails, type LogLevel, type PinoLike, type ServerLogger } from "./logger.js";
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
export { requestState, type RequestFault, type RequestState, type SignatureRefusalFact } from "./state.js";
export { requestSummary, type RequestSummary } from "./summary.js";
export { BODY_LIMIT_BYTES } from "./body.js";
export { stringifyExactJson } from "../json/index.js";
// Deprecated: handlers get int64 ids as bigint (docs/server.md); kept so that servers written
// before still compile.
export { parseExactJson, toId, toOptionalId } from "./ids.js";
export { createMemoryNonceStore, createRedisNonceStore, type NonceStore } from "../signing/index.js";
