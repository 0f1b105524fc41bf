// The callback payloads, typed and checked from the one source: the `webhooks` of the bundled
// signed spec (generated/signed.openapi.json). The event types are found there too, from each
// payload schema's `type` constant, so adding a webhook to the spec adds it here.
import type { components } from "../../generated/signed.js";
import { describeSchemaError, schemasFor, type ErrorObject } from "../contract/index.js";
import { withBigIntsAsNumbers } from "../json/index.js";

type Schemas = components["schemas"];
export type PaymentSucceededEvent = Schemas["PaymentSucceededEvent"];
export type MemberCardApplicationApprovedEvent = Schemas["MemberCardApplicationApprovedEvent"];
export type MemberCardApplicationRejectedEvent = Schemas["MemberCardApplicationRejectedEvent"];

/** Every callback the platform sends, told apart by `type`. */
export type CallbackEvent = PaymentSucceededEvent | MemberCardApplicationApprovedEvent | MemberCardApplicationRejectedEvent;
export type CallbackEventType = CallbackEvent["type"];

export type PayloadCheck =
  | { ok: true; event: CallbackEvent }
  | { ok: false; name: "EVENT_TYPE_UNKNOWN" | "PAYLOAD_INVALID"; message: string };

const MAX_LISTED_ERRORS = 5;

function child(node: unknown, key: string): unknown {
  return typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
}

/** The event types the spec declares, e.g. ["payment.succeeded", ...]. */
export function callbackEventTypes(): string[] {
  return schemasFor("signed").webhooks().map((webhook) => webhook.eventType);
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  const list = (errors ?? []).slice(0, MAX_LISTED_ERRORS).map((error) => describeSchemaError(error, "the payload"));
  const more = (errors?.length ?? 0) > MAX_LISTED_ERRORS ? `; and ${errors!.length - MAX_LISTED_ERRORS} more` : "";
  return list.join("; ") + more;
}

/**
 * Checks a parsed (lossless) payload against its webhook's schema. Ajv knows no bigint, so a
 * copy with bigint ids turned into numbers is validated; the caller keeps the exact original.
 */
export function checkEventPayload(payload: unknown): PayloadCheck {
  const type = child(payload, "type");
  const schemas = schemasFor("signed");
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { ok: false, name: "PAYLOAD_INVALID", message: "The callback payload must be a JSON object." };
  }
  if (typeof type !== "string") {
    return { ok: false, name: "PAYLOAD_INVALID", message: 'The callback payload has no string "type".' };
  }
  const webhook = schemas.webhook(type);
  if (!webhook) {
    return {
      ok: false,
      name: "EVENT_TYPE_UNKNOWN",
      message: `Unknown callback event type ${JSON.stringify(type)}; this version knows ${callbackEventTypes().join(", ")}.`,
    };
  }
  const validate = schemas.validator(webhook.pointer);
  if (!validate(withBigIntsAsNumbers(payload))) {
    return { ok: false, name: "PAYLOAD_INVALID", message: `The ${type} payload does not match the ${webhook.name} schema: ${describeErrors(validate.errors)}.` };
  }
  return { ok: true, event: payload as CallbackEvent };
}
