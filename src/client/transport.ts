// The fetch that openapi-fetch calls. It reads each answer in full and hands openapi-fetch a
// LosslessResponse, whose json() parses with parseJsonLossless so int64 ids above 2^53 stay
// exact (DESIGN item 11).
//
// Why a fetch wrapper and not `parseAs`: openapi-fetch 0.17 only picks one of the Response's
// own readers by name (json/text/blob/...), and for a success without Content-Length it calls
// JSON.parse(await response.text()) itself, never response.json(). So the answer is rebuilt
// with an exact Content-Length, which makes openapi-fetch call our json(). The body is read
// here, inside the attempt's timeout, so a stalled body is a TimeoutError and a reset one a
// NetworkError, and the text stays available for the envelope check (envelope.ts) whatever
// openapi-fetch did with the body.
import { parseJsonLossless } from "../json/index.js";
import { NetworkError, RedirectError, ResponseTooLargeError, UnexpectedResponseError } from "./errors.js";
import type { FetchLike } from "./options.js";

// Statuses whose Response must be built without a body.
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

type Parsed = { ok: true; value: unknown } | { ok: false; error: unknown };

/** The body parsed losslessly, once (kept in `memo`); throws UnexpectedResponseError for text that is not JSON. */
function parsedOnce(memo: { parsed?: Parsed }, bodyText: string, status: number): unknown {
  if (!memo.parsed) {
    try {
      memo.parsed = { ok: true, value: parseJsonLossless(bodyText) };
    } catch (error) {
      memo.parsed = { ok: false, error };
    }
  }
  if (memo.parsed.ok) return memo.parsed.value;
  throw new UnexpectedResponseError({
    reason: bodyText.trim() === "" ? "the answer has an empty body, not JSON" : "the answer is not JSON",
    httpStatus: status,
    body: bodyText,
    cause: memo.parsed.error,
  });
}

/**
 * What a call() reads of an answer, read in full: its status, its headers (as received) and its
 * text, parsed losslessly on demand. No Response is built for it: a call() hands its answer to
 * no one (only the envelope's data or an error leaves the client), and a LosslessResponse,
 * with its copy of the headers, cost about a tenth of the client's own work per call.
 */
export class AnswerText {
  readonly #memo: { parsed?: Parsed } = {};
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly bodyText: string,
  ) {}

  parsedBody(): unknown {
    return parsedOnce(this.#memo, this.bodyText, this.status);
  }
}

/** An answer the client read in full itself, so its text and lossless parse are at hand. */
export function isReadAnswer(response: unknown): response is LosslessResponse | AnswerText {
  return response instanceof LosslessResponse || response instanceof AnswerText;
}

/**
 * An answer read in full: its text, and json() parsed losslessly.
 *
 * Built without a body stream: constructing a Response over a string sets up a web stream,
 * which cost more than the rest of a call's client-side work. The stream is made only when
 * something asks for `body`; text(), json(), arrayBuffer(), blob() and clone() answer from the
 * text already read.
 */
export class LosslessResponse extends Response {
  /** The body as received, decoded as UTF-8. */
  readonly bodyText: string;
  // Own properties: a constructed Response has no url and is never "redirected"; keep the
  // fetched answer's values for middleware and error messages.
  override readonly url: string;
  override readonly redirected: boolean;
  readonly #memo: { parsed?: Parsed } = {};
  #used = false;
  /** undefined until `body` is first read; null for statuses without a body. */
  #stream: ReadableStream<Uint8Array> | null | undefined;

  constructor(bodyText: string, init: ResponseInit, origin: { url: string; redirected: boolean }) {
    super(null, init);
    this.bodyText = bodyText;
    this.url = origin.url;
    this.redirected = origin.redirected;
    if (NULL_BODY_STATUSES.has(this.status)) this.#stream = null;
  }

  /** Builds the lossless copy of an answer whose body was read as text. */
  static from(response: Response, bodyText: string): LosslessResponse {
    const headers = new Headers(response.headers);
    // The text is already decoded and complete: the encoding headers no longer describe it.
    headers.delete("content-encoding");
    headers.delete("transfer-encoding");
    headers.set("content-length", String(Buffer.byteLength(bodyText, "utf8")));
    return new LosslessResponse(
      bodyText,
      { status: response.status, statusText: response.statusText, headers },
      { url: response.url, redirected: response.redirected },
    );
  }

  // body and bodyUsed are accessors of Response.prototype (the DOM typings call them
  // properties, so they are redefined here rather than with get/set syntax).
  static {
    Object.defineProperties(LosslessResponse.prototype, {
      body: {
        configurable: true,
        /** The body as a stream of the text's UTF-8 bytes, made on first use. */
        get(this: LosslessResponse): ReadableStream<Uint8Array> | null {
          if (this.#stream === undefined) this.#stream = this.#used ? emptyUsedStream() : (new Response(this.bodyText).body as ReadableStream<Uint8Array>);
          return this.#stream;
        },
      },
      bodyUsed: {
        configurable: true,
        get(this: LosslessResponse): boolean {
          return this.#used || (this.#stream?.locked ?? false);
        },
      },
    });
  }

  /** The body parsed losslessly, once; throws UnexpectedResponseError for text that is not JSON. */
  parsedBody(): unknown {
    return parsedOnce(this.#memo, this.bodyText, this.status);
  }

  /** Marks the body read, as Response's readers do; a second read is a TypeError. */
  #consume(): string {
    if (this.bodyUsed) throw new TypeError("Body is unusable: Body has already been read");
    this.#used = true;
    return this.#stream === null ? "" : this.bodyText;
  }

  // Fields rather than methods because the DOM typings declare json, text and clone as properties.
  /** The text already read (openapi-fetch reads a success body with text() in the data mode). Readable once, as Response.text() is. */
  override text = async (): Promise<string> => this.#consume();

  override json = async (): Promise<unknown> => {
    this.#consume();
    return this.parsedBody();
  };

  override arrayBuffer = async (): Promise<ArrayBuffer> => {
    const bytes = new TextEncoder().encode(this.#consume());
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  };

  override blob = async (): Promise<Blob> => new Blob([this.#consume()], { type: this.headers.get("content-type") ?? "" });

  override formData = async (): Promise<FormData> => new Response(this.#consume(), { headers: this.headers }).formData();

  override clone = (): LosslessResponse => {
    if (this.bodyUsed) throw new TypeError("Response.clone: the body has already been consumed");
    return new LosslessResponse(
      this.bodyText,
      { status: this.status, statusText: this.statusText, headers: this.headers },
      { url: this.url, redirected: this.redirected },
    );
  };
}

/** What `body` shows after the text was read through text() or json(): a stream already read. */
function emptyUsedStream(): ReadableStream<Uint8Array> {
  const stream = new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
  void stream.getReader().read();
  return stream;
}

function looksLikeResponse(value: unknown): value is Response {
  return typeof value === "object" && value !== null && typeof (value as Response).status === "number" && typeof (value as Response).text === "function";
}

export interface ClientFetchSettings {
  /** The app's fetch, or undefined for the global one (looked up per call so test stubs apply). */
  fetch: FetchLike | undefined;
  /** The largest answer body read, in bytes. */
  maxResponseBytes: number;
}

/**
 * Reads the body as UTF-8 text, refusing one larger than the limit: at once when Content-Length
 * says so, otherwise as soon as the bytes read pass it (the rest is never buffered).
 */
async function readLimited(response: Response, limit: number, tooLarge: (declared?: number) => Error): Promise<string> {
  const declared = response.headers.get("content-length");
  if (declared !== null && /^[0-9]+$/.test(declared)) {
    const bytes = Number(declared);
    if (bytes > limit) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge(bytes);
    }
    // The engine's own reader; the HTTP parser never delivers more than Content-Length.
    return response.text();
  }
  if (response.body === null) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, total));
}

/**
 * A fetch for openapi-fetch: calls the app's fetch (or the global one) without following
 * redirects, turns a failure without an answer into a NetworkError, a 3xx into a RedirectError,
 * a body over maxResponseBytes into a ResponseTooLargeError, and answers a LosslessResponse. An
 * abort is passed through untouched: the caller (core.ts) knows whether it was the timeout or
 * the app's own signal.
 */
export function createClientFetch(settings: ClientFetchSettings): FetchLike {
  const appFetch = settings.fetch;
  return async (given: Request): Promise<Response> => {
    // A redirect is never followed, whatever the per-call options said (issue: the signature
    // headers and body went to the other origin).
    const request = given.redirect === "manual" ? given : new Request(given, { redirect: "manual" });
    return settle(() => (appFetch ?? globalThis.fetch)(request), request.method, request.url, request.signal, settings.maxResponseBytes, LosslessResponse.from);
  };
}

/** What the client's direct path sends: the final URL and the fetch init (method, headers, body, signal). */
export interface DirectRequest {
  url: string;
  init: RequestInit & { method: string; signal: AbortSignal; headers: Headers | Record<string, string> };
}

/**
 * The same as createClientFetch for a request given as URL + init rather than a Request: the
 * global fetch takes them as they are (one Request built, inside fetch); an app's fetch still
 * gets a Request, as it always does.
 */
export function createDirectFetch(settings: ClientFetchSettings): (request: DirectRequest) => Promise<AnswerText> {
  const appFetch = settings.fetch;
  return ({ url, init }) => {
    const sent = { ...init, redirect: "manual" as const };
    const send = appFetch ? () => appFetch(new Request(url, sent)) : () => globalThis.fetch(url, sent);
    return settle(send, init.method, url, init.signal, settings.maxResponseBytes, (response, text) => new AnswerText(response.status, response.headers, text));
  };
}

/** Sends, then judges and reads the answer (see createClientFetch). */
async function settle<Answer>(
  send: () => Promise<unknown>,
  method: string,
  url: string,
  signal: AbortSignal,
  maxResponseBytes: number,
  answer: (response: Response, text: string) => Answer,
): Promise<Answer> {
  const failure = (cause: unknown): unknown => (signal.aborted ? signal.reason ?? cause : new NetworkError({ method, url, cause }));
  let response: unknown;
  try {
    response = await send();
  } catch (error) {
    throw failure(error);
  }
  if (!looksLikeResponse(response)) {
    throw new UnexpectedResponseError({ reason: "the fetch function did not return a Response", httpStatus: 0, body: String(response) });
  }
  const redirect = (response.status >= 300 && response.status <= 399) || response.type === "opaqueredirect";
  if (redirect || response.redirected) {
    await response.body?.cancel().catch(() => undefined);
    throw new RedirectError({
      method,
      url,
      // An injected fetch that followed the redirect itself answers the final page: say so.
      httpStatus: response.status,
      location: redirect ? (response.headers.get("location") ?? "") : response.url,
    });
  }
  if (response.status < 200 || response.status > 599) {
    // Response.error() (status 0) is how a fetch implementation may report a network error.
    throw failure(new Error(`the fetch function answered status ${response.status}`));
  }
  const status = response.status;
  let text: string;
  try {
    text = await readLimited(response, maxResponseBytes, (declaredBytes) => new ResponseTooLargeError({ method, url, httpStatus: status, limitBytes: maxResponseBytes, declaredBytes }));
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw error;
    throw failure(error);
  }
  return answer(response, text);
}
