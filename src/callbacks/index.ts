// Receiving the platform's callbacks: verify a delivery (signature, freshness, payload schema),
// and an Express handler that also dedupes on the event id and acknowledges with "success".
export {
  verifyCallback,
  type CallbackFailure,
  type CallbackFailureName,
  type CallbackSuccess,
  type CallbackVerification,
  type VerifyCallbackInput,
} from "./verify.js";
export {
  callbackEventTypes,
  type CallbackEvent,
  type CallbackEventType,
  type MemberCardApplicationApprovedEvent,
  type MemberCardApplicationRejectedEvent,
  type PaymentSucceededEvent,
} from "./events.js";
export {
  createMemoryEventStore,
  type EventClaim,
  type EventStore,
  type MemoryEventStore,
  type MemoryEventStoreOptions,
} from "./event-store.js";
export {
  BODY_ALREADY_PARSED_ANSWER,
  createCallbackHandler,
  DEFAULT_CALLBACK_BODY_TIMEOUT_MS,
  DEFAULT_CALLBACK_LEASE_MS,
  MAX_CALLBACK_BODY_BYTES,
  type CallbackDelivery,
  type CallbackHandlerOptions,
  type CallbackRequestHandler,
} from "./handler.js";
export {
  CALLBACK_VARIANTS,
  expectedAnswer,
  STALE_BY_SECONDS,
  testDelivery,
  testEventBody,
  type CallbackVariant,
  type TestDelivery,
  type TestDeliveryInput,
} from "./test-deliveries.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { CallbackConfigError } from "./errors.js";
