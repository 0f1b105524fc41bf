// The callback payloads, typed and checked from the one source: the `webhooks` of the bundled
// signed spec (generated/signed.openapi.json). The event types are found there too, from each
// payload schema's `type` constant, so adding a webhook to the spec adds it here.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ErrorObject, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { components } from "../../generated/signed.js";
import { withBigIntsAsNumbers } from "../json/index.js";
import { packageRoot } from "../util/package-root.js";

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

interface EventSchema {
  /** The webhook's key in the spec, e.g. "paymentSucceeded". */
  webhook: string;
  validate: ValidateFunction;
}

type Json = Record<string, unknown>;
const SPEC_ID = "mop-signed-openapi";
const MAX_LISTED_ERRORS = 5;

let schemas: Map<string, EventSchema> | undefined;

function child(node: unknown, key: string): unknown {
  return typeof node === "object" && node !== null ? (node as Json)[key] : undefined;
}

function resolveRef(spec: Json, node: unknown): unknown {
  const ref = child(node, "$ref");
  if (typeof ref !== "string" || !ref.startsWith("#/")) return node;
  return ref.slice(2).split("/").reduce<unknown>((at, part) => child(at, part.replace(/~1/g, "/").replace(/~0/g, "~")), spec);
}

/** Compiles one validator per event type, once, on first use. */
function eventSchemas(): Map<string, EventSchema> {
  if (schemas) return schemas;
  const spec = JSON.parse(readFileSync(join(packageRoot(), "generated", "signed.openapi.json"), "utf8")) as Json;
  // strict: false because the spec carries OpenAPI keywords (x-source, examples on
  // properties, ...) that are not JSON Schema.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // Registered whole under an id so the payloads' "#/components/schemas/..." refs resolve.
  ajv.addSchema({ ...spec, $id: SPEC_ID, $schema: undefined }, undefined, undefined, false);

  const found = new Map<string, EventSchema>();
  for (const webhook of Object.keys((spec.webhooks as Json | undefined) ?? {})) {
    const pointer = `/webhooks/${webhook}/post/requestBody/content/application~1json/schema`;
    const schema = resolveRef(spec, child(child(child(child(child(child(spec.webhooks, webhook), "post"), "requestBody"), "content"), "application/json"), "schema"));
    const type = child(child(child(schema, "properties"), "type"), "const");
    if (typeof type !== "string") continue;
    found.set(type, { webhook, validate: ajv.compile({ $ref: `${SPEC_ID}#${pointer}` }) });
  }
  schemas = found;
  return found;
}

/** The event types the spec declares, e.g. ["payment.succeeded", ...]. */
export function callbackEventTypes(): string[] {
  return [...eventSchemas().keys()];
}

function describeErrors(errors: ErrorObject[] | null | undefined): string {
  const list = (errors ?? []).slice(0, MAX_LISTED_ERRORS).map((error) => {
    const where = error.instancePath === "" ? "the payload" : error.instancePath;
    const extra = error.keyword === "additionalProperties" ? ` (${String(error.params.additionalProperty)})` : "";
    return `${where} ${error.message ?? "is invalid"}${extra}`;
  });
  const more = (errors?.length ?? 0) > MAX_LISTED_ERRORS ? `; and ${errors!.length - MAX_LISTED_ERRORS} more` : "";
  return list.join("; ") + more;
}

/**
 * Checks a parsed (lossless) payload against its webhook's schema. Ajv knows no bigint, so a
 * copy with bigint ids turned into numbers is validated; the caller keeps the exact original.
 */
export function checkEventPayload(payload: unknown): PayloadCheck {
  const type = child(payload, "type");
  const known = eventSchemas();
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { ok: false, name: "PAYLOAD_INVALID", message: "The callback payload must be a JSON object." };
  }
  if (typeof type !== "string") {
    return { ok: false, name: "PAYLOAD_INVALID", message: 'The callback payload has no string "type".' };
  }
  const schema = known.get(type);
  if (!schema) {
    return {
      ok: false,
      name: "EVENT_TYPE_UNKNOWN",
      message: `Unknown callback event type ${JSON.stringify(type)}; this version knows ${[...known.keys()].join(", ")}.`,
    };
  }
  if (!schema.validate(withBigIntsAsNumbers(payload))) {
    return { ok: false, name: "PAYLOAD_INVALID", message: `The ${type} payload does not match the ${schema.webhook} schema: ${describeErrors(schema.validate.errors)}.` };
  }
  return { ok: true, event: payload as CallbackEvent };
}
