// Callbacks that go wrong on purpose, for testing a receiver (docs/scenarios.md): a well-formed
// test event of any webhook the spec defines (built from the webhook's own example), and each
// delivery variant a receiver must handle, with what a correct receiver answers:
//   exact             the same body and event id, freshly signed: a duplicate (acknowledge it,
//                     process it once);
//   reordered-fields  the same JSON with its members in another order, signed over those bytes
//                     (acknowledge: a receiver that re-serialises before verifying fails here);
//   tampered-body     a body changed after signing (refuse);
//   wrong-secret      signed with a secret that is not the app's, e.g. after a rotation it
//                     missed (refuse);
//   stale-timestamp   signed correctly, with a timestamp outside the window (refuse).
// Used by `mop trigger` and by the sandbox's redeliverCallback.
import { randomBytes } from "node:crypto";
import { schemasFor } from "../contract/index.js";
import { parseJsonLossless, stringifyJson } from "../json/index.js";
import { DEFAULT_WINDOW_SECONDS, signRequestHeaders, type SignedRequestHeaders } from "../signing/index.js";
import { checkEventPayload, type CallbackEventType } from "./events.js";
import { CallbackConfigError } from "./errors.js";

export const CALLBACK_VARIANTS = ["exact", "tampered-body", "wrong-secret", "stale-timestamp", "reordered-fields"] as const;
export type CallbackVariant = (typeof CALLBACK_VARIANTS)[number];

/** What a correct receiver does with a variant: acknowledge it (2xx) or refuse it (anything else). */
export function expectedAnswer(variant: CallbackVariant): "acknowledged" | "refused" {
  return variant === "exact" || variant === "reordered-fields" ? "acknowledged" : "refused";
}

/** How far outside the signature window a stale-timestamp delivery is signed: twice the window in the past. */
export const STALE_BY_SECONDS = 2 * DEFAULT_WINDOW_SECONDS;

export interface TestDelivery {
  variant: CallbackVariant;
  /** The four signature headers to send (and Content-Type: application/json). */
  headers: SignedRequestHeaders;
  /** The exact body to send. */
  body: string;
  expected: "acknowledged" | "refused";
  /** One line: what was done to the delivery. */
  description: string;
}

export interface TestDeliveryInput {
  appKey: string;
  /** The app's secret (the first, which signs callbacks). */
  appSecret: string;
  /** The event's exact JSON text, as it was (or would be) delivered. */
  body: string;
  /** Epoch ms. Default Date.now. */
  now?: () => number;
}

/** The members of every object in reverse order (arrays keep theirs); ids stay exact. */
function reordered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reordered);
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, member]) => [key, reordered(member)]));
}

/**
 * The body with one character changed, the JSON still valid and the same length: the amount's
 * last digit when the event has one (the change an attacker would make), else the last digit.
 */
function tampered(body: string): string {
  const amount = /"totalAmount":(\d+)/.exec(body);
  const at = amount ? amount.index + amount[0].length - 1 : Math.max(body.search(/\d(?=\D*$)/), 0);
  const digit = body[at] ?? "0";
  const other = /\d/.test(digit) ? String((Number(digit) + 1) % 10) : "0";
  return body.slice(0, at) + other + body.slice(at + 1);
}

/** A delivery of `body` as `variant` would send it. */
export function testDelivery(variant: CallbackVariant, input: TestDeliveryInput): TestDelivery {
  const now = input.now ?? Date.now;
  const sign = (body: string, overrides: { appSecret?: string; timestamp?: string } = {}) =>
    signRequestHeaders({ appKey: input.appKey, appSecret: overrides.appSecret ?? input.appSecret, body, now, ...(overrides.timestamp !== undefined && { timestamp: overrides.timestamp }) });
  const expected = expectedAnswer(variant);
  switch (variant) {
    case "exact":
      return { variant, expected, body: input.body, headers: sign(input.body), description: "the same body and event id, freshly signed (a duplicate)" };
    case "reordered-fields": {
      const body = stringifyJson(reordered(parseJsonLossless(input.body))) ?? input.body;
      return { variant, expected, body, headers: sign(body), description: "the same JSON with its members in reverse order, signed over those bytes" };
    }
    case "tampered-body":
      return { variant, expected, body: tampered(input.body), headers: sign(input.body), description: "one character of the body changed after signing" };
    case "wrong-secret":
      return { variant, expected, body: input.body, headers: sign(input.body, { appSecret: `${input.appSecret}-not-the-current-secret` }), description: "signed with a secret that is not the app's" };
    case "stale-timestamp": {
      const timestamp = String(Math.floor(now() / 1000) - STALE_BY_SECONDS);
      return { variant, expected, body: input.body, headers: sign(input.body, { timestamp }), description: `signed with a timestamp ${STALE_BY_SECONDS} s old, outside the ${DEFAULT_WINDOW_SECONDS} s window` };
    }
  }
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `evt_` and 24 random letters and digits, like the platform's event ids. */
function newTestEventId(): string {
  let id = "evt_";
  for (const byte of randomBytes(24)) id += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  return id;
}

/** ISO 8601 in the platform's time zone (+08:00), whole seconds, as the platform writes times. */
function platformTime(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000 + 8 * 3600_000).toISOString().slice(0, 19)}+08:00`;
}

/**
 * A well-formed test event of `type`: the webhook's first example in the spec, with a fresh id
 * and createTime, and `data` members replaced by `data` (checked against the webhook's schema).
 * Answers its exact JSON text.
 */
export function testEventBody(type: CallbackEventType | string, options: { data?: Record<string, unknown>; now?: () => number } = {}): string {
  const schemas = schemasFor("signed");
  const webhook = schemas.webhook(type);
  if (!webhook) throw new CallbackConfigError("type", `no webhook of the signed spec sends ${JSON.stringify(type)}; the event types are ${schemas.webhooks().map((w) => w.eventType).join(", ")}`);
  const media = schemas.spec.webhooks?.[webhook.name]?.post?.requestBody?.content?.["application/json"];
  const example = Object.values<{ value?: { data?: Record<string, unknown> } }>(media?.examples ?? {})[0]?.value;
  if (!example) throw new CallbackConfigError("type", `the ${webhook.name} webhook has no example to build a test event from`);
  const payload = { ...example, id: newTestEventId(), createTime: platformTime((options.now ?? Date.now)()), data: { ...example.data, ...options.data } };
  const checked = checkEventPayload(payload);
  if (!checked.ok) throw new CallbackConfigError("data", checked.message);
  return stringifyJson(payload) ?? "";
}
