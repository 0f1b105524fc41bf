// The client of the key-based interface (/v1): Authorization: Bearer <API_KEY>, envelope
// {code: 200, message, data}, string ids.
import type { Client, Middleware } from "openapi-fetch";
import { KeyedErrors } from "../../generated/error-codes.js";
import { ENVELOPE_DIALECTS } from "../envelopes.js";
import { keyedOperations, type KeyedOperationId } from "../../generated/keyed.operations.js";
import type { operations, paths } from "../../generated/keyed.js";
import { clientFace, createClientCore } from "./core.js";
import { ClientConfigError } from "./errors.js";
import { bearerHeaders, bearerMiddleware } from "./middleware.js";
import type { OperationArgs, OperationData } from "./operations.js";
import {
  optionalFunction,
  requireOptionsObject,
  requireString,
  resolveBaseUrl,
  resolveMaxResponseBytes,
  resolveMiddleware,
  resolveRetry,
  resolveTimeout,
  type FetchLike,
  type RetryOptions,
} from "./options.js";

/** What createKeyedClient needs: where the service is, the API key, and optional tuning. */
export interface KeyedClientOptions {
  /**
   * The key-based interface's address, e.g. "https://api.example.com/v1". A URL with a path is
   * used exactly as given; only a bare origin gets "/v1".
   */
  baseUrl: string;
  /** The account's API key, sent as Authorization: Bearer <apiKey> (pass the bare key). */
  apiKey: string;
  /** The fetch to call (a test stub, a proxy agent, ...); default globalThis.fetch. */
  fetch?: FetchLike;
  /** Time allowed per attempt, reading the body included, in ms. Default 10 000. */
  timeoutMs?: number;
  /** The largest answer body the client reads, in bytes (a larger one is a ResponseTooLargeError). Default 10 MiB. */
  maxResponseBytes?: number;
  /** Retries of safe calls (all GETs), or false for none. Default 2 retries with back-off. */
  retry?: RetryOptions | false;
  /** openapi-fetch request/response middleware, run before the bearer middleware. */
  middleware?: Middleware[];
  /** The clock in epoch milliseconds, for Retry-After dates; default Date.now. */
  now?: () => number;
}

/** The key-based client: openapi-fetch's typed methods (with timeouts and retries) plus the data mode. */
export interface KeyedClient extends Client<paths> {
  readonly kind: "keyed";
  readonly baseUrl: string;
  /** Calls an operation by operationId and returns the envelope's `data` (code 200); throws as SignedClient.call. */
  call<Id extends KeyedOperationId>(operationId: Id, ...init: OperationArgs<operations[Id]>): Promise<OperationData<operations[Id]>>;
}

/**
 * Creates the typed client of the key-based interface (/v1): every request carries
 * Authorization: Bearer <apiKey>; `call` returns the envelope's data (code 200) or throws
 * ApiError. Redirects are never followed (RedirectError).
 *
 * @example
 * const keyed = createKeyedClient({ baseUrl: "http://127.0.0.1:4010/v1", apiKey: "demo-api-key" });
 * const { merchants } = await keyed.call("listAccountMerchants", { params: { query: { page: 1, limit: 20 } } });
 */
export function createKeyedClient(options: KeyedClientOptions): KeyedClient {
  const given = requireOptionsObject(options, "createKeyedClient");
  const baseUrl = resolveBaseUrl(given.baseUrl, "/v1");
  const apiKey = requireString("apiKey", given.apiKey, "pass the API key of the account (sent as Authorization: Bearer <apiKey>)");
  if (/\s/.test(apiKey)) {
    // "Bearer <key>" would become a malformed header; usually the "Bearer " prefix was pasted in.
    throw new ClientConfigError("apiKey", "apiKey must not contain spaces; pass the bare key, without \"Bearer \"");
  }
  if (!/^[\x21-\x7e]+$/.test(apiKey)) throw new ClientConfigError("apiKey", "apiKey must be visible ASCII characters (it is sent in a header)");
  const now = optionalFunction<() => number>("now", given.now);

  const core = createClientCore({
    baseUrl,
    fetch: optionalFunction<FetchLike>("fetch", given.fetch),
    timeoutMs: resolveTimeout(given.timeoutMs),
    maxResponseBytes: resolveMaxResponseBytes(given.maxResponseBytes),
    retry: resolveRetry(given.retry),
    auth: bearerMiddleware(apiKey),
    authorize: bearerHeaders(apiKey),
    middleware: resolveMiddleware(given.middleware),
    operations: keyedOperations,
    idempotentOperations: new Set(),
    rateLimitedCode: KeyedErrors.KEYED_RATE_LIMITED.code,
    dialect: { ...ENVELOPE_DIALECTS.keyed, baseUrl, other: ENVELOPE_DIALECTS.signed },
    now: now ?? Date.now,
  });

  return clientFace("keyed", baseUrl, core) as unknown as KeyedClient;
}
