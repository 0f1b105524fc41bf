// Checks what an app passes to createSignedClient / createKeyedClient, once, at creation, so
// a missing secret or a mistyped base URL is a ClientConfigError naming the option instead
// of a TypeError (or a signature mismatch) on the first call.
import type { Middleware } from "openapi-fetch";
import { ClientConfigError } from "./errors.js";

/** The fetch a client calls: the global one, or an injected one (tests, proxies, mocks). It gets a Request and answers a Response. */
export type FetchLike = (request: Request) => Promise<Response>;

/**
 * Retries of safe calls (GETs, and createCashierSession for the signed client): a network
 * error, a timeout, HTTP 429/502/503/504 or the rate-limit code are retried with exponential
 * back-off and full jitter, honouring Retry-After; each attempt is signed afresh. Pass `false`
 * instead to turn retries off.
 *
 * @example
 * createSignedClient({ baseUrl, appKey, appSecret, retry: { retries: 4, baseDelayMs: 100, maxDelayMs: 2000 } });
 */
export interface RetryOptions {
  /** Retries after the first attempt. Default 2. */
  retries?: number;
  /** The back-off cap of the first retry, doubled per retry. Default 200 ms. */
  baseDelayMs?: number;
  /** The largest wait between attempts; a longer Retry-After ends the retries. Default 5000 ms. */
  maxDelayMs?: number;
  /** Waits ms milliseconds; injectable so tests need no real sleeps. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** A number in [0, 1) for the jitter; injectable for tests. Default Math.random. */
  random?: () => number;
}

export interface ResolvedRetry {
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
}

/** The default time allowed per attempt, reading the body included: 10 s. */
export const DEFAULT_TIMEOUT_MS = 10_000;
// setTimeout fires at once for delays above 2^31 - 1 ms.
const MAX_TIMER_MS = 2_147_483_647;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value;
}

export function requireOptionsObject(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ClientConfigError("options", `${what} needs an options object, got ${describe(value)}`);
  }
  return value as Record<string, unknown>;
}

export function requireString(field: string, value: unknown, hint: string): string {
  if (value === undefined || value === null) throw new ClientConfigError(field, `${field} is missing; ${hint}`);
  if (typeof value !== "string") throw new ClientConfigError(field, `${field} must be a string, got ${describe(value)}; ${hint}`);
  if (value.trim() === "") throw new ClientConfigError(field, `${field} must not be empty; ${hint}`);
  return value;
}

export function optionalFunction<T>(field: string, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "function") throw new ClientConfigError(field, `${field} must be a function, got ${describe(value)}`);
  return value as T;
}

function requireNumber(field: string, value: unknown, rule: string, ok: (n: number) => boolean): number {
  if (typeof value !== "number" || !ok(value)) {
    throw new ClientConfigError(field, `${field} must be ${rule}, got ${typeof value === "number" ? value : describe(value)}`);
  }
  return value;
}

/**
 * The base URL, used exactly as given (without a trailing slash) when it names a path, "/"
 * included: "http://proxy:8080/" sends operations to the proxy's root ("/orders"). Only a bare
 * origin, with nothing after the host and port, gets the default base path: "/open-api/v1" for
 * the signed interface, "/v1" for the key-based one.
 */
export function resolveBaseUrl(value: unknown, defaultBasePath: string): string {
  const text = requireString("baseUrl", value, `give the service address, e.g. "http://127.0.0.1:4010${defaultBasePath}"`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ClientConfigError("baseUrl", `baseUrl ${JSON.stringify(text)} is not an absolute URL; e.g. "http://127.0.0.1:4010${defaultBasePath}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ClientConfigError("baseUrl", `baseUrl must use http or https, got ${url.protocol}`);
  }
  if (url.search !== "" || url.hash !== "" || /[?#]/.test(text)) {
    throw new ClientConfigError("baseUrl", `baseUrl must not carry a query or fragment, got ${JSON.stringify(text)}`);
  }
  // URL gives a bare origin the path "/" too, so look at the text: a path is anything after the authority.
  const bareOrigin = !/^[a-z][a-z0-9+.-]*:\/\/[^/]*\//i.test(text.trim());
  if (bareOrigin) return `${url.origin}${defaultBasePath}`;
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

/** The default cap on an answer's body: far above the largest page the contract allows. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export function resolveMaxResponseBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_RESPONSE_BYTES;
  return requireNumber("maxResponseBytes", value, "a whole number of bytes >= 1", (n) => Number.isSafeInteger(n) && n >= 1);
}

export function resolveTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  return requireNumber("timeoutMs", value, `a positive number of milliseconds up to ${MAX_TIMER_MS}`, (n) => n > 0 && n <= MAX_TIMER_MS);
}

const realSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/** The retry settings; `false` means a single attempt. */
export function resolveRetry(value: unknown): ResolvedRetry {
  if (value === false) return { retries: 0, baseDelayMs: 0, maxDelayMs: 0, sleep: realSleep, random: Math.random };
  const given = value === undefined ? {} : requireOptionsObject(value, "retry");
  const nonNegativeInteger = (n: number) => Number.isSafeInteger(n) && n >= 0;
  const delay = (n: number) => Number.isFinite(n) && n >= 0 && n <= MAX_TIMER_MS;
  const retries = given.retries === undefined ? 2 : requireNumber("retry.retries", given.retries, "a whole number >= 0", nonNegativeInteger);
  const baseDelayMs = given.baseDelayMs === undefined ? 200 : requireNumber("retry.baseDelayMs", given.baseDelayMs, "a number of milliseconds >= 0", delay);
  const maxDelayMs = given.maxDelayMs === undefined ? 5000 : requireNumber("retry.maxDelayMs", given.maxDelayMs, "a number of milliseconds >= 0", delay);
  if (maxDelayMs < baseDelayMs) {
    throw new ClientConfigError("retry.maxDelayMs", `retry.maxDelayMs (${maxDelayMs}) must not be below retry.baseDelayMs (${baseDelayMs})`);
  }
  return {
    retries,
    baseDelayMs,
    maxDelayMs,
    sleep: optionalFunction<ResolvedRetry["sleep"]>("retry.sleep", given.sleep) ?? realSleep,
    random: optionalFunction<ResolvedRetry["random"]>("retry.random", given.random) ?? Math.random,
  };
}

export function resolveMiddleware(value: unknown): Middleware[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new ClientConfigError("middleware", `middleware must be an array of middleware objects, got ${describe(value)}`);
  value.forEach((item: unknown, index) => assertMiddleware(item, `middleware[${index}]`));
  return value as Middleware[];
}

export function assertMiddleware(item: unknown, field: string): asserts item is Middleware {
  const m = item as Record<string, unknown> | null;
  const ok =
    typeof m === "object" && m !== null &&
    ["onRequest", "onResponse", "onError"].some((hook) => typeof m[hook] === "function");
  if (!ok) throw new ClientConfigError(field, `${field} must be an object with onRequest, onResponse or onError functions`);
}
