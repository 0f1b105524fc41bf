// Every refusal of a server built on the kit (the sandbox included) is a RefusalError carrying a
// registry entry (openapi/errors.yaml via generated/error-codes.ts); toFailure turns anything
// thrown anywhere, including the validator's and the body parser's errors, into one. The
// envelope itself is written in envelope.ts.
import { error as validatorErrors } from "express-openapi-validator";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { FieldConfigError, MerchantOpenPlatformError } from "../errors.js";

export type SignedErrorName = keyof typeof SignedErrors;
export type KeyedErrorName = keyof typeof KeyedErrors;

interface RegistryEntry {
  readonly code: number;
  readonly http: number;
}

/**
 * The server refuses the request with this registry entry; the pipeline answers it as an error
 * envelope. (The client's ApiError is the other side of the same envelope.) `Name` narrows the
 * registry name, so a handler's refusal is checked against the errors its operation declares.
 */
export class RefusalError<Name extends SignedErrorName | KeyedErrorName = SignedErrorName | KeyedErrorName> extends MerchantOpenPlatformError {
  override readonly name = "RefusalError";
  constructor(
    readonly registryName: Name,
    readonly entry: RegistryEntry,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/** The kit was given an option it cannot use; `field` names it. */
export class ServerConfigError extends FieldConfigError {
  override readonly name = "ServerConfigError";
}

/** A refusal of the signed interface (and the control API, which shares its codes). */
export function signedError<Name extends SignedErrorName>(name: Name, message: string, headers?: Record<string, string>): RefusalError<Name> {
  return new RefusalError(name, SignedErrors[name], message, headers);
}

export function keyedError<Name extends KeyedErrorName>(name: Name, message: string, headers?: Record<string, string>): RefusalError<Name> {
  return new RefusalError(name, KeyedErrors[name], message, headers);
}

/** What one validator error says: where, and what is wrong. */
interface FieldError {
  path?: string;
  message?: string;
}

const LOCATIONS: Record<string, string> = { body: "body", query: "query", params: "path", headers: "header", cookies: "cookie" };

/** "/body/items/0/price" → "body.items[0].price" */
function fieldName(path: string): string {
  const parts = path.split("/").filter(Boolean).map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"));
  const [first, ...rest] = parts;
  if (first === undefined) return "request";
  let name = LOCATIONS[first] ?? first;
  for (const part of rest) name += /^[0-9]+$/.test(part) ? `[${part}]` : `.${part}`;
  return name;
}

function describeFieldError(error: FieldError): string {
  const message = error.message ?? "is invalid";
  const field = fieldName(error.path ?? "");
  if (/^must have required property/.test(message)) return field === "body" ? "body is required" : `${field} is required`;
  if (message === "must NOT have additional properties") return `${field} is not allowed (unknown property)`;
  if (/^Unknown query parameter/.test(message)) return `${field} is not allowed (unknown query parameter)`;
  if (/^Empty value found/.test(message)) return `${field} must not be empty`;
  return `${field} ${message}`;
}

/** Failing fields named in one message at most; the rest are counted. */
export const LISTED_VALIDATION_ERRORS = 20;

/**
 * One message naming every failing field and why, e.g. "body.subject must NOT have more than
 * 32 characters; query.pageSize must be <= 100"; past LISTED_VALIDATION_ERRORS, "… and N more".
 */
export function describeValidationErrors(errors: readonly FieldError[], fallback: string): string {
  const lines = new Set<string>();
  for (const error of errors) lines.add(describeFieldError(error));
  if (lines.size === 0) return fallback;
  const listed = [...lines].slice(0, LISTED_VALIDATION_ERRORS).join("; ");
  const rest = lines.size - LISTED_VALIDATION_ERRORS;
  return rest > 0 ? `${listed}; and ${rest} more` : listed;
}

export interface Failure {
  name: SignedErrorName | KeyedErrorName;
  message: string;
  headers: Record<string, string>;
  /** Set for failures that mean a server bug; logged loudly. */
  internal?: unknown;
}

function isBodyParserError(err: unknown): err is { type: string; status?: number; message: string } {
  return typeof err === "object" && err !== null && typeof (err as { type?: unknown }).type === "string" && "status" in err;
}

/** Any error → a registry failure (signed names, or keyed ones thrown by the keyed interface). */
export function toFailure(err: unknown, context: { bodyWasEmpty: boolean }): Failure {
  if (err instanceof RefusalError) return { name: err.registryName, message: err.message, headers: { ...err.headers } };
  if (err instanceof validatorErrors.BadRequest) {
    if (/^malformed uri/.test(err.message)) return { name: "VALIDATION_FAILED", message: "The request path is malformed (bad percent-encoding).", headers: {} };
    return { name: "VALIDATION_FAILED", message: describeValidationErrors(err.errors, err.message), headers: {} };
  }
  if (err instanceof validatorErrors.NotFound) {
    return { name: "PATH_NOT_FOUND", message: "No operation exists at this path.", headers: {} };
  }
  if (err instanceof validatorErrors.MethodNotAllowed) {
    const allow = (err.headers as Record<string, string> | undefined)?.Allow ?? "";
    return { name: "METHOD_NOT_ALLOWED", message: `This path does not take ${err.message.split(" ")[0] ?? "this method"}; allowed: ${allow || "none"}.`, headers: allow ? { Allow: allow } : {} };
  }
  if (err instanceof validatorErrors.UnsupportedMediaType) {
    if (context.bodyWasEmpty) return { name: "VALIDATION_FAILED", message: "body is required (send JSON with Content-Type: application/json)", headers: {} };
    return { name: "UNSUPPORTED_MEDIA_TYPE", message: `A request with a body must be sent as application/json (${err.message}).`, headers: {} };
  }
  if (isBodyParserError(err)) {
    if (err.type === "entity.too.large") return { name: "BODY_TOO_LARGE", message: "The request body is larger than 1 MiB.", headers: {} };
    if (err.type === "encoding.unsupported" || err.type === "charset.unsupported") {
      return { name: "UNSUPPORTED_MEDIA_TYPE", message: `The body must be uncompressed UTF-8 JSON (${err.message}).`, headers: {} };
    }
    if (err.status === 400) return { name: "VALIDATION_FAILED", message: `The request body could not be read (${err.message}).`, headers: {} };
  }
  const status = (err as { status?: unknown } | null)?.status;
  if (status === 400) return { name: "VALIDATION_FAILED", message: "The request URL is malformed (bad percent-encoding).", headers: {} };
  return { name: "INTERNAL_ERROR", message: SignedErrors.INTERNAL_ERROR.meaning, headers: {}, internal: err };
}

/** The keyed interface has fewer codes: the pipeline's failures map onto them. */
export function toKeyedName(name: SignedErrorName | KeyedErrorName): KeyedErrorName {
  if (name in KeyedErrors) return name as KeyedErrorName;
  switch (name) {
    case "VALIDATION_FAILED":
    case "BODY_TOO_LARGE":
    case "UNSUPPORTED_MEDIA_TYPE":
      return "KEYED_VALIDATION_FAILED";
    case "PATH_NOT_FOUND":
      return "KEYED_PATH_NOT_FOUND";
    case "METHOD_NOT_ALLOWED":
      return "KEYED_METHOD_NOT_ALLOWED";
    case "RATE_LIMITED":
      return "KEYED_RATE_LIMITED";
    default:
      return "KEYED_INTERNAL_ERROR";
  }
}
