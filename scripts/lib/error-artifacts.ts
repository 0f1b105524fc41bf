// Renders what the registry feeds: the spec's error-code schemas and error responses,
// and the TypeScript table in generated/error-codes.ts.
import { readFileSync } from "node:fs";
import { parse, stringify } from "yaml";
import { codesOf, publicCodes, unknownOperations, type ErrorEntry, type ErrorRegistry, type Variant } from "./error-registry.js";

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

const pascal = (id: string) => id[0]!.toUpperCase() + id.slice(1);

/** The enum of codes with its marks: names, meanings and where each code comes from (docs/extensions.md). */
function codeEnum(entries: readonly ErrorEntry[]) {
  return {
    enum: entries.map((e) => e.code),
    "x-enum-varnames": entries.map((e) => e.name),
    "x-enum-descriptions": entries.map((e) => e.meaning),
    "x-enum-sources": entries.map((e) => e.source),
  };
}

function codeSchema(title: string, entries: ErrorEntry[], scope: string): string {
  const schema = {
    title,
    description:
      `Envelope code of a failed request ${scope}, from the error-code registry (openapi/errors.yaml; docs/errors.md). ` +
      entries.map((e) => `${e.code} ${e.name}: ${e.meaning}`).join(" "),
    type: "integer",
    format: "int32",
    ...codeEnum(entries),
  };
  return YAML_HEADER + stringify(schema, { lineWidth: 0 });
}

/** The hand-written envelope of an interface (openapi/<variant>/components/schemas/ErrorEnvelope.yaml). */
function interfaceEnvelope(variant: Variant): { required: string[]; properties: Record<string, unknown> } {
  const file = new URL(`../../openapi/${variant}/components/schemas/ErrorEnvelope.yaml`, import.meta.url);
  return parse(readFileSync(file, "utf8")) as { required: string[]; properties: Record<string, unknown> };
}

/**
 * An error envelope narrowed to some codes: a complete object with the interface envelope's
 * fields, `code` limited to those codes. Not `allOf: [ErrorEnvelope, {code: narrower enum}]`:
 * generators that emit TypeScript enums (openapi-typescript-codegen, swagger-typescript-api)
 * turn that into the intersection of two enums, which tsc reduces to `never`. The other fields
 * are copied from ErrorEnvelope.yaml, their one source.
 */
function narrowedEnvelope(variant: Variant, entries: readonly ErrorEntry[], what: string) {
  const envelope = interfaceEnvelope(variant);
  return {
    type: "object",
    additionalProperties: false,
    required: envelope.required,
    properties: {
      ...envelope.properties,
      code: {
        type: "integer",
        format: "int32",
        description: `The codes ${what}: ${entries.map((e) => `${e.code} ${e.name}`).join(", ")}.`,
        ...codeEnum(entries),
      },
    },
  };
}

const RETRY_AFTER = {
  "Retry-After": {
    description: "Seconds to wait before the next request (RFC 9110 section 10.2.3, delay-seconds form).",
    schema: { type: "integer", format: "int32", minimum: 1, maximum: 86400 },
  },
};

function errorResponse(status: number, entries: ErrorEntry[], variant: Variant, whose: string): Record<string, unknown> {
  const msgField = variant === "signed" ? "msg" : "message";
  const examples: Record<string, unknown> = {};
  for (const entry of entries) {
    examples[entry.name] = {
      summary: `${entry.code} ${entry.meaning}`,
      value: { code: entry.code, [msgField]: entry.meaning, data: null },
    };
  }
  return {
    description:
      `HTTP ${status}. The envelope code says what failed: ` +
      entries.map((e) => `${e.code} (${e.name})`).join(", ") +
      ". The envelope code is authoritative; a server may also answer these with HTTP 200, whose schema admits them too.",
    // The HTTP status of each code is designed (the source shows none); x-enum-sources says which codes are.
    "x-source": "designed",
    ...(status === 429 && { headers: RETRY_AFTER }),
    content: {
      "application/json": {
        schema: narrowedEnvelope(variant, entries, `${whose} answers with HTTP ${status}`),
        examples,
      },
    },
  };
}

/** What the generator writes for one operation: its error envelope and its error responses by status. */
export interface OperationErrors {
  operationId: string;
  /** Component name of the operation's error envelope (the 200 response's error alternative). */
  envelope: string;
  /** Response component name by HTTP status. */
  responses: Map<number, string>;
}

/**
 * Files under openapi/ rendered from the registry, keyed by path relative to openapi/, and
 * each operation's error components (keyed "variant:operationId"). A response with the same
 * codes for every operation that has its status is shared (Unauthorized, TooManyRequests, …);
 * the others are per operation (GetOrderNotFound).
 */
export function specErrorFiles(registry: ErrorRegistry, operationIds: Record<Variant, string[]>): { files: Map<string, string>; operations: Map<string, OperationErrors> } {
  const files = new Map<string, string>();
  const operations = new Map<string, OperationErrors>();
  for (const variant of ["signed", "keyed"] as const) {
    const entries = registry[variant];
    const ids = operationIds[variant];
    const unknown = unknownOperations(entries, new Set(ids));
    if (unknown.length > 0) throw new Error(`errors.yaml: appliesTo names operations the ${variant} spec does not have: ${unknown.join("; ")}`);
    const schemaName = variant === "signed" ? "SignedErrorCode" : "KeyedErrorCode";
    files.set(`${variant}/components/schemas/${schemaName}.yaml`, codeSchema(schemaName, publicCodes(entries), `of the ${variant} interface`));
    if (variant === "signed") {
      files.set(
        "sandbox-control/components/schemas/ControlErrorCode.yaml",
        codeSchema("ControlErrorCode", entries, "of the sandbox's control API (the signed interface's registry, control-only codes included)"),
      );
    }

    const byOperation = new Map(ids.map((id) => [id, codesOf(entries, variant, id)]));
    const byStatus = new Map<number, Map<string, ErrorEntry[]>>(); // status → operationId → codes
    for (const [id, codes] of byOperation) {
      if (codes.length === 0) throw new Error(`errors.yaml: operation ${id} can return no error code`);
      for (const entry of codes) {
        const perOp = byStatus.get(entry.http) ?? new Map<string, ErrorEntry[]>();
        perOp.set(id, [...(perOp.get(id) ?? []), entry]);
        byStatus.set(entry.http, perOp);
      }
      const envelope = `${pascal(id)}Error`;
      const schema = {
        title: envelope,
        "x-source": "designed",
        description: `Error envelope of ${id}: the interface's envelope with only the codes ${id} can return. The 200 response admits it beside the success envelope, told apart by \`code\`.`,
        ...narrowedEnvelope(variant, codes, `${id} can return`),
      };
      files.set(`${variant}/components/schemas/${envelope}.yaml`, YAML_HEADER + stringify(schema, { lineWidth: 0 }));
      operations.set(`${variant}:${id}`, { operationId: id, envelope, responses: new Map() });
    }
    for (const [status, perOp] of [...byStatus].sort((a, b) => a[0] - b[0])) {
      const sets = new Set([...perOp.values()].map((codes) => codes.map((e) => e.code).join(",")));
      const shared = sets.size === 1;
      for (const [id, codes] of perOp) {
        const name = shared ? responseNameForStatus(status) : `${pascal(id)}${responseNameForStatus(status)}`;
        operations.get(`${variant}:${id}`)!.responses.set(status, name);
        const file = `${variant}/components/responses/${name}.yaml`;
        if (!files.has(file)) files.set(file, YAML_HEADER + stringify(errorResponse(status, codes, variant, shared ? "every operation" : id), { lineWidth: 0 }));
      }
    }
  }
  return { files, operations };
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

const WHERE: Record<string, string> = {
  "all-signed": "every operation",
  "all-keyed": "every operation",
  unrouted: "a request matching no operation",
  control: "sandbox control API only",
};

function where(e: ErrorEntry): string {
  return Array.isArray(e.appliesTo) ? e.appliesTo.map((op) => `\`${op}\``).join(", ") : WHERE[e.appliesTo]!;
}

/** docs/errors.md: the registry as tables, with the HTTP mapping and how the client surfaces errors. */
export function errorsMarkdown(registry: ErrorRegistry): string {
  const table = (entries: ErrorEntry[]) =>
    [
      "| Code | Name | HTTP | Meaning | Where | Source |",
      "|---|---|---|---|---|---|",
      ...entries.map(
        (e) =>
          `| ${e.code} | \`${e.name}\` | ${e.http} | ${e.meaning} | ${where(e)} | ${e.source} |`,
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
    "conformance checker accepts that unless run with `--strict-http`, and each operation's 200",
    "schema admits its error envelope for that reason.",
    "",
    "Two answers come from the HTTP server before any operation is matched, and so are declared",
    "by no operation: **408** (the request was not received in time) and **431** (the request",
    "headers are too large), each with the `100009` envelope (`data: null`) and `Connection: close`.",
    "A malformed HTTP request is answered 400 with the same envelope.",
    "",
    "The \"Where\" column decides the specs: each operation's error responses list exactly the codes",
    "whose row names it (or \"every operation\"). Codes for a request matching no operation are in",
    "the interface's `ErrorEnvelope` only; the sandbox control API's own codes are in its spec only.",
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
