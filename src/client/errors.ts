// Everything the client throws extends MerchantOpenPlatformError (src/errors.ts, the root of
// every error of the package), so an app can catch the platform's failures in one place and
// still tell them apart:
//
//   ClientConfigError        the client was created or called with something it cannot use
//   ApiError                 the service answered an envelope with an error code
//   NetworkError             no answer: connection refused or reset, DNS failure, ...
//   TimeoutError             no complete answer within timeoutMs
//   UnexpectedResponseError  an answer that is not the contract's JSON envelope
//   RedirectError            a 3xx answer: never followed, so a signature never goes elsewhere
//   ResponseTooLargeError    an answer body over maxResponseBytes
//
// An ApiError carries the registry entry of its code (generated/error-codes.ts), so the app
// can branch on a stable name (`ORDER_NOT_FOUND`) instead of a number.
import { FieldConfigError, MerchantOpenPlatformError } from "../errors.js";

export { MerchantOpenPlatformError };

/** The client was created or called with an option or argument it cannot use. */
export class ClientConfigError extends FieldConfigError {
  override readonly name = "ClientConfigError";
}

/** The registry entry of an error code, as carried by an ApiError. */
export interface ApiErrorEntry {
  /** Stable name, e.g. "ORDER_NOT_FOUND". */
  readonly name: string;
  /** What the code means, from the registry. */
  readonly meaning: string;
  /** The HTTP status the contract maps the code to. */
  readonly http: number;
  /** "document" for the source's codes, "designed" for codes this contract added. */
  readonly source: "document" | "designed";
}

/**
 * The service answered with an error envelope (code other than 0, or 200 for the key-based
 * API). Branch on `errorName` (stable, from the registry), not on the message.
 *
 * @example
 * try {
 *   await client.call("getOrder", { params: { path: { orderId }, query: { merchantId: 10001 } } });
 * } catch (error) {
 *   if (error instanceof ApiError && error.errorName === "ORDER_NOT_FOUND") return undefined;
 *   throw error;
 * }
 */
export class ApiError extends MerchantOpenPlatformError {
  override readonly name = "ApiError";
  /** The envelope code, e.g. 300001. */
  readonly code: number;
  /** The HTTP status of the answer (the envelope code is authoritative; see DESIGN item 4). */
  readonly httpStatus: number;
  /** The registry entry of the code; undefined for a code the registry does not know. */
  readonly entry: ApiErrorEntry | undefined;
  /** The entry's name, e.g. "ORDER_NOT_FOUND"; undefined for an unregistered code. */
  readonly errorName: string | undefined;
  /** The entry's meaning; undefined for an unregistered code. */
  readonly meaning: string | undefined;
  declare operationId: string;

  /** message is the envelope's own msg (or message) text, unchanged. */
  constructor(input: { code: number; message: string; httpStatus: number; operationId: string; entry: ApiErrorEntry | undefined }) {
    super(input.message, { operationId: input.operationId });
    this.code = input.code;
    this.httpStatus = input.httpStatus;
    this.entry = input.entry;
    this.errorName = input.entry?.name;
    this.meaning = input.entry?.meaning;
  }
}

/** The request got no answer: refused or reset connection, DNS failure, TLS failure, ... */
export class NetworkError extends MerchantOpenPlatformError {
  override readonly name = "NetworkError";
  readonly method: string;
  readonly url: string;

  constructor(input: { method: string; url: string; cause: unknown; operationId?: string | undefined }) {
    super(`${input.method} ${input.url} got no answer: ${describeCause(input.cause)}`, input);
    this.method = input.method;
    this.url = input.url;
  }
}

/** The answer did not arrive in full within the per-attempt timeout. */
export class TimeoutError extends MerchantOpenPlatformError {
  override readonly name = "TimeoutError";
  readonly timeoutMs: number;
  readonly method: string;
  readonly url: string;

  constructor(input: { method: string; url: string; timeoutMs: number; operationId?: string | undefined }) {
    super(`${input.method} ${input.url} did not answer within ${input.timeoutMs} ms`, input);
    this.timeoutMs = input.timeoutMs;
    this.method = input.method;
    this.url = input.url;
  }
}

/**
 * The service answered with a redirect (3xx). The clients never follow one: following would
 * re-send the signature headers (or the API key) and the body to the address in Location.
 * Point baseUrl at the final address instead.
 */
export class RedirectError extends MerchantOpenPlatformError {
  override readonly name = "RedirectError";
  readonly httpStatus: number;
  /** The Location header of the answer, as sent ("" when there was none). */
  readonly location: string;
  readonly method: string;
  readonly url: string;

  constructor(input: { method: string; url: string; httpStatus: number; location: string; operationId?: string | undefined }) {
    const where = input.location === "" ? "without a Location" : `to ${input.location}`;
    super(
      `${input.method} ${input.url} answered a redirect (HTTP ${input.httpStatus}) ${where}; the client does not follow redirects, ` +
        "so the signature and body are not sent to another address: use the final address as baseUrl",
      input,
    );
    this.httpStatus = input.httpStatus;
    this.location = input.location;
    this.method = input.method;
    this.url = input.url;
  }
}

/** The answer's body is larger than the client's maxResponseBytes; it was not read further. */
export class ResponseTooLargeError extends MerchantOpenPlatformError {
  override readonly name = "ResponseTooLargeError";
  readonly httpStatus: number;
  /** The limit in bytes (the client's maxResponseBytes). */
  readonly limitBytes: number;
  readonly method: string;
  readonly url: string;

  constructor(input: { method: string; url: string; httpStatus: number; limitBytes: number; declaredBytes?: number | undefined; operationId?: string | undefined }) {
    const size = input.declaredBytes === undefined ? "more than that" : `${input.declaredBytes} bytes by its Content-Length`;
    super(
      `${input.method} ${input.url} answered a body over the client's maxResponseBytes (${input.limitBytes} bytes; the answer is ${size}); ` +
        "raise maxResponseBytes if such answers are expected",
      input,
    );
    this.httpStatus = input.httpStatus;
    this.limitBytes = input.limitBytes;
    this.method = input.method;
    this.url = input.url;
  }
}

const SNIPPET_LENGTH = 200;

/** The answer was not the contract's JSON envelope (an HTML error page, an empty body, ...). */
export class UnexpectedResponseError extends MerchantOpenPlatformError {
  override readonly name = "UnexpectedResponseError";
  readonly httpStatus: number;
  /** The start of the body, for diagnosis. */
  readonly bodySnippet: string;

  constructor(input: { reason: string; httpStatus: number; body: string; operationId?: string | undefined; cause?: unknown }) {
    const snippet = input.body.length > SNIPPET_LENGTH ? `${input.body.slice(0, SNIPPET_LENGTH)}…` : input.body;
    const what = input.operationId ? `${input.operationId}: ` : "";
    super(`${what}${input.reason} (HTTP ${input.httpStatus}; body: ${JSON.stringify(snippet)})`, input);
    this.httpStatus = input.httpStatus;
    this.bodySnippet = snippet;
  }
}

/** A short, readable reason from a fetch failure (undici hides the useful part in `cause`). */
function describeCause(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    parts.push(typeof code === "string" ? `${current.message} (${code})` : current.message);
    current = current.cause;
  }
  return parts.length > 0 ? parts.join(": ") : String(error);
}
