// The bundled specs the sandbox serves (generated/*.openapi.json), read once per process, and
// validators for the webhook payloads it sends. Nothing here restates a field list.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { packageRoot } from "../util/package-root.js";

export type SpecName = "signed" | "keyed" | "sandbox-control";

/** A bundled OpenAPI document; typed loosely, it is handed to the validator as is. */
export type OpenApiDocument = Record<string, unknown>;

const documents = new Map<SpecName, OpenApiDocument>();

export function specPath(name: SpecName): string {
  return join(packageRoot(), "generated", `${name}.openapi.json`);
}

/** The bundled spec. Shared: callers must not mutate it (express-openapi-validator clones it). */
export function loadSpec(name: SpecName): OpenApiDocument {
  let document = documents.get(name);
  if (!document) {
    document = JSON.parse(readFileSync(specPath(name), "utf8")) as OpenApiDocument;
    documents.set(name, document);
  }
  return document;
}

export type WebhookEventSchema = "PaymentSucceededEvent" | "MemberCardApplicationApprovedEvent" | "MemberCardApplicationRejectedEvent";

let eventValidators: Map<WebhookEventSchema, ValidateFunction> | undefined;

/** Errors of a webhook payload (with bigints as Numbers) against its schema; empty when valid. */
export function validateWebhookEvent(schema: WebhookEventSchema, payload: unknown): string[] {
  if (!eventValidators) {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const id = "https://merchant-open-platform.local/sandbox/signed.json";
    ajv.addSchema({ ...loadSpec("signed"), $id: id }, undefined, undefined, false);
    eventValidators = new Map();
    for (const name of ["PaymentSucceededEvent", "MemberCardApplicationApprovedEvent", "MemberCardApplicationRejectedEvent"] as const) {
      eventValidators.set(name, ajv.compile({ $ref: `${id}#/components/schemas/${name}` }));
    }
  }
  const validate = eventValidators.get(schema);
  if (!validate) return [`no schema ${schema}`];
  if (validate(payload)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || "(root)"} ${error.message ?? "is invalid"}`);
}
