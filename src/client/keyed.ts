// The client of the key-based interface (/v1): Authorization: Bearer <API_KEY>, envelope
// {code: 200, message, data}, string ids.
import type { Client, Middleware } from "openapi-fetch";
import { describeKeyedError, KeyedErrors, KEYED_SUCCESS_CODE } from "../../generated/error-codes.js";
import { keyedOperations, type KeyedOperationId } from "../../generated/keyed.operations.js";
import type { operations, paths } from "../../generated/keyed.js";
import { clientFace, createClientCore } from "./core.js";
import { ClientConfigError } from "./errors.js";
import { bearerMiddleware } from "./middleware.js";
import type { OperationArgs, OperationData } from "./operations.js";
import {
  optionalFunction,
  requireOptionsObject,
  requireString,
  resolveBaseUrl,
  resolveMiddleware,
  resolveRetry,
  resolveTimeout,
  type FetchLike,
  type RetryOptions,
} from "./options.js";

export interface KeyedClientOptions {
  /** e.g. "https://api.example.com/v1"; a bare origin gets "/v1". */
  baseUrl: string;
  /** The API key, sent as Authorization: Bearer <apiKey>. */
  apiKey: string;
  fetch?: FetchLike;
  /** Per attempt, including reading the body. Default 10 000 ms. */
  timeoutMs?: number;
  /** Retries of safe calls (all GETs); false for none. */
  retry?: RetryOptions | false;
  /** Request/response middleware, run before the bearer middleware. */
  middleware?: Middleware[];
  /** The clock in epoch milliseconds, for Retry-After dates; default Date.now. */
  now?: () => number;
}

export interface KeyedClient extends Client<paths> {
  readonly kind: "keyed";
  readonly baseUrl: string;
  /** Calls an operation by operationId and returns the envelope's `data` (code 200); throws as SignedClient.call. */
  call<Id extends KeyedOperationId>(operationId: Id, ...init: OperationArgs<operations[Id]>): Promise<OperationData<operations[Id]>>;
}

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
    retry: resolveRetry(given.retry),
    auth: bearerMiddleware(apiKey),
    middleware: resolveMiddleware(given.middleware),
    operations: keyedOperations,
    idempotentOperations: new Set(),
    rateLimitedCode: KeyedErrors.KEYED_RATE_LIMITED.code,
    dialect: { successCode: KEYED_SUCCESS_CODE, messageField: "message", describe: describeKeyedError },
    now: now ?? Date.now,
  });

  return clientFace("keyed", baseUrl, core) as unknown as KeyedClient;
}
