// The client core shared by the signed and the key-based client: an openapi-fetch client whose
// every call runs through send(), which adds the per-attempt timeout and the retries, and keeps
// the authentication middleware last.
//
// Retries repeat the whole openapi-fetch call, not just the fetch, so the middlewares (and so
// the signature, with a fresh timestamp and nonce) run again on every attempt.
import createClient, { createFinalURL, createQuerySerializer, defaultPathSerializer, mergeHeaders, type Client, type Middleware } from "openapi-fetch";
import { stringifyJson } from "../json/index.js";
import { unwrapEnvelope, type EnvelopeDialect, type RawResult } from "./envelope.js";
import { ClientConfigError, MerchantOpenPlatformError, TimeoutError } from "./errors.js";
import { operationIndex, type OperationTable } from "./operations.js";
import type { HeaderTarget } from "./middleware.js";
import { assertMiddleware, type FetchLike, type ResolvedRetry } from "./options.js";
import { withRetries } from "./retry.js";
import { createClientFetch, createDirectFetch } from "./transport.js";

export interface CoreSettings {
  baseUrl: string;
  fetch: FetchLike | undefined;
  timeoutMs: number;
  /** The largest answer body read, in bytes. */
  maxResponseBytes: number;
  retry: ResolvedRetry;
  /** Signing or bearer middleware; always runs after every other request middleware. */
  auth: Middleware;
  /** What `auth` does, on headers and the body text: the direct path's authentication. */
  authorize: (headers: HeaderTarget, body: string | undefined) => void;
  /** The app's own middleware, run before auth. */
  middleware: Middleware[];
  operations: OperationTable;
  /** POST operations that are safe to repeat (besides every GET). */
  idempotentOperations: ReadonlySet<string>;
  rateLimitedCode: number;
  dialect: EnvelopeDialect;
  now: () => number;
}

type Init = Record<string, unknown> & { signal?: AbortSignal | null; middleware?: Middleware[] };
/** The options the direct path reads itself; anything else goes to fetch as it would through openapi-fetch. */
type DirectInit = { params?: { header?: Record<string, string>; path?: Record<string, unknown>; query?: Record<string, unknown> }; body?: unknown; headers?: Record<string, string> | Headers; parseAs?: unknown };

/** Options only openapi-fetch understands: with any of them, a call goes through openapi-fetch. */
const OPENAPI_FETCH_OPTIONS = ["fetch", "Request", "baseUrl", "querySerializer", "bodySerializer", "pathSerializer"];

export interface ClientCore {
  send(method: string, schemaPath: string, init: unknown, dataMode?: boolean, operationId?: string): Promise<RawResult>;
  call(operationId: string, init: unknown): Promise<unknown>;
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
}

/** The public face of both clients: openapi-fetch's methods and the data mode, over one core. */
export function clientFace<Kind extends "signed" | "keyed">(kind: Kind, baseUrl: string, core: ClientCore) {
  return { kind, baseUrl, ...methodsOf(core), call: (operationId: string, init?: unknown) => core.call(operationId, init) };
}

/** The openapi-fetch methods a typed client exposes, all routed through send(). */
export function methodsOf(core: ClientCore) {
  const method = (name: string) => (url: string, init?: unknown) => core.send(name, url, init);
  return {
    request: (name: string, url: string, init?: unknown) => core.send(name.toUpperCase(), url, init),
    GET: method("GET"),
    PUT: method("PUT"),
    POST: method("POST"),
    DELETE: method("DELETE"),
    OPTIONS: method("OPTIONS"),
    HEAD: method("HEAD"),
    PATCH: method("PATCH"),
    TRACE: method("TRACE"),
    use: (...middleware: Middleware[]) => core.use(...middleware),
    eject: (...middleware: Middleware[]) => core.eject(...middleware),
  };
}

/** A plain header record behind the HeaderTarget face, with Headers' case-insensitive names. */
function recordTarget(record: Record<string, string>): HeaderTarget {
  const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
  return {
    set(name, value) {
      for (const key of Object.keys(record)) if (key !== name && sameName(key, name)) delete record[key];
      record[name] = value;
    },
    has: (name) => Object.keys(record).some((key) => sameName(key, name)),
  };
}

export function createClientCore(settings: CoreSettings): ClientCore {
  const inner: Client<Record<string, never>> = createClient({
    baseUrl: settings.baseUrl,
    fetch: createClientFetch({ fetch: settings.fetch, maxResponseBytes: settings.maxResponseBytes }),
    // Never follow a redirect (transport.ts refuses it too, whatever a call passes).
    redirect: "manual",
    // bigint ids go out as their exact digits. Query and path values need no serializer of
    // their own: openapi-fetch writes primitives with encodeURIComponent(value), which gives
    // a bigint's exact digits (covered by test/client/int64.test.ts).
    bodySerializer: (body: unknown) => stringifyJson(body),
  });
  inner.use(...settings.middleware);
  // The app's global middleware, mirrored: call() takes the direct path only while there is none.
  const appMiddleware = new Set<Middleware>(settings.middleware);
  const findOperation = operationIndex(settings.operations);
  const directFetch = createDirectFetch({ fetch: settings.fetch, maxResponseBytes: settings.maxResponseBytes });
  const querySerializer = createQuerySerializer();

  const isDirect = (init: Init): boolean =>
    appMiddleware.size === 0 && (init.middleware === undefined || init.middleware.length === 0) && !OPENAPI_FETCH_OPTIONS.some((key) => key in init);

  /**
   * call() without middleware: the URL, headers and body built as openapi-fetch builds them
   * (its own helpers), authenticated over the exact body text, and fetched by URL. Skips what
   * only middleware could need: a Request object to hand around, the signer reading the body
   * back from it, and openapi-fetch reading the answer once more.
   */
  async function direct(method: string, schemaPath: string, init: Init, signal: AbortSignal): Promise<RawResult> {
    const { params = {}, body, headers, parseAs: _parseAs, middleware: _none, signal: _appSignal, ...rest } = init as Init & DirectInit;
    const text = body === undefined ? undefined : stringifyJson(body);
    let finalHeaders: Headers | Record<string, string>;
    if (headers === undefined && params.header === undefined) {
      // Nothing of the app's to merge: a plain record, which fetch reads without a Headers
      // object in between (the authentication's values are checked where they are made).
      finalHeaders = text === undefined ? {} : { "Content-Type": "application/json" };
      settings.authorize(recordTarget(finalHeaders), text);
    } else {
      finalHeaders = mergeHeaders(text === undefined ? {} : { "Content-Type": "application/json" }, headers, params.header);
      settings.authorize(finalHeaders, text);
    }
    const url = createFinalURL(schemaPath, { baseUrl: settings.baseUrl, params, querySerializer, pathSerializer: defaultPathSerializer });
    const response = await directFetch({ url, init: { ...rest, method, headers: finalHeaders, body: text ?? null, signal } });
    const ok = response.status >= 200 && response.status <= 299;
    return ok ? { data: response.bodyText, response } : { error: response.bodyText, response };
  }

  /** One attempt, with its own timeout, combined with the app's signal if it gave one. */
  async function attempt(method: string, schemaPath: string, init: Init, operationId: string | undefined, dataMode: boolean): Promise<RawResult> {
    const appSignal = init.signal ?? undefined;
    if (appSignal?.aborted) throw appSignal.reason;
    const controller = new AbortController();
    let timedOut = false;
    // Settles on abort even if an injected fetch ignores its signal; rejected by whoever aborts
    // (a listener on the signal per attempt cost more than the rest of the attempt's set-up).
    // The direct path over the global fetch settles on abort by itself (no middleware to
    // stall, and fetch honours its signal while the body is read): raced against nothing.
    const viaDirect = dataMode && isDirect(init);
    let rejectAborted: (reason: unknown) => void = () => {};
    const aborted =
      viaDirect && settings.fetch === undefined
        ? undefined
        : new Promise<never>((_, reject) => {
            rejectAborted = reject;
          });
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new TimeoutError({ method, url: settings.baseUrl + schemaPath, timeoutMs: settings.timeoutMs, operationId }));
      rejectAborted(controller.signal.reason);
    }, settings.timeoutMs);
    const onAppAbort = () => {
      controller.abort(appSignal?.reason);
      rejectAborted(controller.signal.reason);
    };
    appSignal?.addEventListener("abort", onAppAbort, { once: true });
    try {
      const call = viaDirect
        ? direct(method, schemaPath, init, controller.signal)
        : (inner.request(method.toLowerCase() as "get", schemaPath as never, {
            ...init,
            signal: controller.signal,
            // Keeps the authentication last, after the app's global and per-call middleware.
            middleware: [...(init.middleware ?? []), settings.auth],
          } as never) as Promise<RawResult>);
      return await (aborted === undefined ? call : Promise.race([call, aborted]));
    } catch (error) {
      if (timedOut) throw controller.signal.reason;
      if (appSignal?.aborted) throw appSignal.reason;
      if (error instanceof MerchantOpenPlatformError && error.operationId === undefined) error.operationId = operationId;
      throw error;
    } finally {
      clearTimeout(timer);
      appSignal?.removeEventListener("abort", onAppAbort);
    }
  }

  /** dataMode: a call() (its answer is only read as an envelope), which may take the direct path. */
  async function send(method: string, schemaPath: string, given: unknown, dataMode = false, knownOperationId?: string): Promise<RawResult> {
    if (given !== undefined && (typeof given !== "object" || given === null)) {
      throw new ClientConfigError("init", `the request options must be an object, got ${given === null ? "null" : typeof given}`);
    }
    const init = (given ?? {}) as Init;
    if (init.middleware !== undefined) {
      if (!Array.isArray(init.middleware)) throw new ClientConfigError("middleware", "the per-call middleware must be an array");
      init.middleware.forEach((m, i) => assertMiddleware(m, `middleware[${i}]`));
    }
    const upper = method.toUpperCase();
    const operationId = knownOperationId ?? findOperation(upper, schemaPath);
    const canRetry = upper === "GET" || (operationId !== undefined && settings.idempotentOperations.has(operationId));
    return withRetries(() => attempt(upper, schemaPath, init, operationId, dataMode), {
      canRetry,
      settings: settings.retry,
      judge: { rateLimitedCode: settings.rateLimitedCode, now: settings.now },
      signal: init.signal ?? undefined,
    });
  }

  async function call(operationId: string, given: unknown): Promise<unknown> {
    const operation = Object.hasOwn(settings.operations, operationId) ? settings.operations[operationId] : undefined;
    if (!operation) {
      throw new ClientConfigError("operationId", `unknown operationId ${JSON.stringify(operationId)}; known: ${Object.keys(settings.operations).join(", ")}`);
    }
    if (given !== undefined && (typeof given !== "object" || given === null)) {
      throw new ClientConfigError("init", `the options of ${operationId} must be an object`);
    }
    // Text, so openapi-fetch never JSON.parses a success body; the envelope is parsed losslessly.
    const result = await send(operation.method, operation.path, { ...(given as object | undefined), parseAs: "text" }, true, operationId);
    return unwrapEnvelope(result, operationId, settings.dialect);
  }

  return {
    send,
    call,
    use: (...middleware) => {
      middleware.forEach((m, i) => assertMiddleware(m, `use() argument ${i}`));
      inner.use(...middleware);
      for (const m of middleware) appMiddleware.add(m);
    },
    eject: (...middleware) => {
      inner.eject(...middleware);
      for (const m of middleware) appMiddleware.delete(m);
    },
  };
}
