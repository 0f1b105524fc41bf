// Renders what the registry feeds: the spec's error-code schemas and error responses,
// and the TypeScript table in generated/error-codes.ts.
import { stringify } from "yaml";
import type { ErrorEntry, ErrorRegistry } from "./error-registry.js";

export const YAML_HEADER =
  "# Generated from openapi/errors.yaml by scripts/generate.ts. Do not edit: change the registry and run npm run generate.\n";

const STATUS_RESPONSES: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  409: "Conflict",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
  429: "TooManyRequests",
  500: "InternalError",
};

export function responseNameForStatus(status: number): string {
  const name = STATUS_RESPONSES[status];
  if (!name) throw new Error(`errors.yaml: no response component for HTTP ${status}`);
  return name;
}

function codeSchema(entries: ErrorEntry[], variant: "signed" | "keyed"): string {
  const schema = {
    title: variant === "signed" ? "SignedErrorCode" : "KeyedErrorCode",
    description:
      "Envelope code of a failed request, from the error-code registry (openapi/errors.yaml). " +
      entries.map((e) => `${e.code} ${e.name}: ${e.meaning}`).join(" "),
    type: "integer",
    enum: entries.map((e) => e.code),
    "x-enum-varnames": entries.map((e) => e.name),
    "x-enum-descriptions": entries.map((e) => e.meaning),
  };
  return YAML_HEADER + stringify(schema, { lineWidth: 0 });
}

function errorResponse(status: number, entries: ErrorEntry[], variant: "signed" | "keyed"): string {
  const msgField = variant === "signed" ? "msg" : "message";
  const examples: Record<string, unknown> = {};
  for (const entry of entries) {
    examples[entry.name] = {
      summary: `${entry.code} ${entry.meaning}`,
      value: { code: entry.code, [msgField]: entry.meaning, data: null },
    };
  }
  const response = {
    description:
      `HTTP ${status}. The envelope code says what failed: ` +
      entries.map((e) => `${e.code} (${e.name})`).join(", ") +
      ". The envelope code is authoritative; a server may also answer these with HTTP 200.",
    content: {
      "application/json": {
        schema: { $ref: "../schemas/ErrorEnvelope.yaml" },
        examples,
      },
    },
  };
  return YAML_HEADER + stringify(response, { lineWidth: 0 });
}

/** Files under openapi/ that are rendered from the registry, keyed by path relative to openapi/. */
export function specErrorFiles(registry: ErrorRegistry): Map<string, string> {
  const files = new Map<string, string>();
  for (const variant of ["signed", "keyed"] as const) {
    const entries = registry[variant];
    const schemaName = variant === "signed" ? "SignedErrorCode" : "KeyedErrorCode";
    files.set(`${variant}/components/schemas/${schemaName}.yaml`, codeSchema(entries, variant));
    const byStatus = new Map<number, ErrorEntry[]>();
    for (const entry of entries) byStatus.set(entry.http, [...(byStatus.get(entry.http) ?? []), entry]);
    for (const [status, group] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      files.set(`${variant}/components/responses/${responseNameForStatus(status)}.yaml`, errorResponse(status, group, variant));
    }
  }
  return files;
}

export function errorCodesModule(registry: ErrorRegistry): string {
  const row = (e: ErrorEntry) =>
    `  ${e.name}: { code: ${e.code}, http: ${e.http}, meaning: ${JSON.stringify(e.meaning)}, source: ${JSON.stringify(e.source)}, appliesTo: ${JSON.stringify(e.appliesTo)} },`;
  return [
    "// Generated from openapi/errors.yaml by scripts/generate.ts. Do not edit: change the registry and run npm run generate.",
    "",
    "export interface ErrorCodeEntry {",
    "  readonly code: number;",
    "  readonly http: number;",
    "  readonly meaning: string;",
    '  readonly source: "document" | "designed";',
    "  readonly appliesTo: string | readonly string[];",
    "}",
    "",
    "/** Envelope error codes of the signed interface (/open-api), by name. Success is code 0. */",
    "export const SignedErrors = {",
    ...registry.signed.map(row),
    "} as const satisfies Record<string, ErrorCodeEntry>;",
    "",
    "/** Envelope error codes of the key-based interface (/v1), by name. Success is code 200. */",
    "export const KeyedErrors = {",
    ...registry.keyed.map(row),
    "} as const satisfies Record<string, ErrorCodeEntry>;",
    "",
    "export type SignedErrorName = keyof typeof SignedErrors;",
    "export type KeyedErrorName = keyof typeof KeyedErrors;",
    "export type SignedErrorCode = (typeof SignedErrors)[SignedErrorName][\"code\"];",
    "export type KeyedErrorCode = (typeof KeyedErrors)[KeyedErrorName][\"code\"];",
    "",
    "/** Success codes of the two envelopes. */",
    "export const SIGNED_SUCCESS_CODE = 0;",
    "export const KEYED_SUCCESS_CODE = 200;",
    "",
    "const signedByCode = new Map<number, ErrorCodeEntry & { name: SignedErrorName }>(",
    "  Object.entries(SignedErrors).map(([name, entry]) => [entry.code, { ...entry, name: name as SignedErrorName }]),",
    ");",
    "const keyedByCode = new Map<number, ErrorCodeEntry & { name: KeyedErrorName }>(",
    "  Object.entries(KeyedErrors).map(([name, entry]) => [entry.code, { ...entry, name: name as KeyedErrorName }]),",
    ");",
    "",
    "/** The registry entry of a signed-interface envelope code, or undefined for an unregistered code. */",
    "export function describeSignedError(code: number): (ErrorCodeEntry & { name: SignedErrorName }) | undefined {",
    "  return signedByCode.get(code);",
    "}",
    "",
    "/** The registry entry of a key-based-interface envelope code, or undefined for an unregistered code. */",
    "export function describeKeyedError(code: number): (ErrorCodeEntry & { name: KeyedErrorName }) | undefined {",
    "  return keyedByCode.get(code);",
    "}",
    "",
  ].join("\n");
}

/** docs/errors.md: the registry as tables, with the HTTP mapping and how the client surfaces errors. */
export function errorsMarkdown(registry: ErrorRegistry): string {
  const table = (entries: ErrorEntry[]) =>
    [
      "| Code | Name | HTTP | Meaning | Where | Source |",
      "|---|---|---|---|---|---|",
      ...entries.map(
        (e) =>
          `| ${e.code} | \`${e.name}\` | ${e.http} | ${e.meaning} | ${Array.isArray(e.appliesTo) ? (e.appliesTo.length ? e.appliesTo.map((op) => `\`${op}\``).join(", ") : "sandbox control API") : e.appliesTo === "all-signed" ? "every signed operation" : e.appliesTo} | ${e.source} |`,
      ),
    ].join("\n");
  return [
    "<!-- Generated from openapi/errors.yaml by scripts/generate.ts. Do not edit: change the registry and run npm run generate. -->",
    "# Errors",
    "",
    "Every answer carries an envelope. On the signed interface (`/open-api`) success is",
    "`{\"code\": 0, \"msg\": \"success\", \"data\": …}`; on the key-based interface (`/v1`) it is",
    "`{\"code\": 200, \"message\": \"success\", \"data\": …}`. A failure carries one of the codes below",
    "and `data: null`; the message names the field or header at fault and the rule it breaks.",
    "",
    "The envelope code is authoritative. The sandbox also answers with the HTTP status in the",
    "table (200 success, 400 validation, 401 signature/authentication, 403 permission, 404",
    "unknown resource, 405 method, 409 state or idempotency conflict, 413 body too large, 415",
    "content type, 429 rate limit, 500 internal). A server may answer errors with HTTP 200; the",
    "conformance checker accepts that unless run with `--strict-http`.",
    "",
    "The typed client turns a failure into an `ApiError` with `code`, `message`, `httpStatus`,",
    "`operationId` and the registry entry (`name`, `meaning`); `generated/error-codes.ts` exports",
    "the same table as `SignedErrors` / `KeyedErrors` for `switch` statements.",
    "",
    "## Signed interface",
    "",
    "Ranges: 1xxxxx authentication, permission, validation; 2xxxxx merchant, store, customer;",
    "3xxxxx order; 4xxxxx payment; 5xxxxx member card. `source: document` codes come from the",
    "source document unchanged; `designed` ones fill its gaps.",
    "",
    table(registry.signed),
    "",
    "## Key-based interface",
    "",
    table(registry.keyed),
    "",
  ].join("\n");
}
