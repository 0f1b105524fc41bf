// The callbacks of the contract, typed from the signed spec's webhooks (generated/signed.ts):
// the payload of each, its event type and its data. A webhook added to the spec is one here.
import type { webhooks } from "../../generated/signed.js";

type PayloadOf<W extends keyof webhooks> = webhooks[W]["post"] extends { requestBody: { content: { "application/json": infer Payload } } } ? Payload : never;

/** Every callback payload the platform sends, told apart by `type`. */
export type CallbackPayload = { [W in keyof webhooks]: PayloadOf<W> }[keyof webhooks];
export type CallbackEventType = CallbackPayload["type"];
/** The `data` of one event type's payload. */
export type CallbackData<T extends CallbackEventType> = Extract<CallbackPayload, { type: T }>["data"];
