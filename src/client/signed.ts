// The client of the signed open interface (/open-api/v1): every request carries the four
// signature headers, computed over the exact bytes sent.
import type { Client, Middleware } from "openapi-fetch";
import { SignedErrors } from "../../generated/error-codes.js";
import { ENVELOPE_DIALECTS } from "../envelopes.js";
import { signedOperations, type SignedOperationId } from "../../generated/signed.operations.js";
import type { operations, paths } from "../../generated/signed.js";
import { clientFace, createClientCore } from "./core.js";
import { ClientConfigError } from "./errors.js";
import { createHeaderSigner, signingMiddleware } from "./middleware.js";
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

/** What createSignedClient needs: where the service is, the app's credentials, and optional tuning. */
export interface SignedClientOptions {
  /**
   * The signed interface's address, e.g. "https://api.example.com/open-api/v1" ("/open-api",
   * unversioned, works too). A URL with a path is used exactly as given ("http://proxy:8080/"
   * means the proxy's root); only a bare origin ("http://127.0.0.1:4010") gets "/open-api/v1".
   */
  baseUrl: string;
  /** The app key, sent as X-App-Key. */
  appKey: string;
  /** The app secret: the HMAC key, never sent. Keep it on the server. */
  appSecret: string;
  /** The fetch to call (a test stub, a proxy agent, ...); default globalThis.fetch. */
  fetch?: FetchLike;
  /** The clock in epoch milliseconds, for X-Timestamp; default Date.now. */
  now?: () => number;
  /** Makes each X-Nonce (8-64 of A-Z a-z 0-9 _ -); default crypto.randomUUID. */
  nonce?: () => string;
  /** Time allowed per attempt, reading the body included, in ms. Default 10 000. */
  timeoutMs?: number;
  /** The largest answer body the client reads, in bytes (a larger one is a ResponseTooLargeError). Default 10 MiB. */
  maxResponseBytes?: number;
  /** Retries of safe calls (GETs and createCashierSession), or false for none. Default 2 retries with back-off. */
  retry?: RetryOptions | false;
  /** openapi-fetch request/response middleware, run before the signing (so the signature covers their changes). */
  middleware?: Middleware[];
}

/** POSTs the contract makes idempotent, and so safe to repeat: createCashierSession on outTradeNo. */
export const SIGNED_IDEMPOTENT_OPERATIONS: ReadonlySet<SignedOperationId> = new Set<SignedOperationId>(["createCashierSession"]);

/** The signed client: openapi-fetch's typed methods (with timeouts and retries) plus the data mode. */
export interface SignedClient extends Client<paths> {
  readonly kind: "signed";
  /** The base URL in use, without a trailing slash. */
  readonly baseUrl: string;
  /**
   * Calls an operation by operationId and returns the envelope's `data`. Throws ApiError for an
   * error code, and NetworkError, TimeoutError or UnexpectedResponseError when there is no
   * envelope to read.
   */
  call<Id extends SignedOperationId>(operationId: Id, ...init: OperationArgs<operations[Id]>): Promise<OperationData<operations[Id]>>;
}

/**
 * Creates the typed client of the signed open interface (/open-api/v1): every request carries
 * X-App-Key, X-Timestamp, X-Nonce and X-Sign over its exact body; answers are parsed losslessly
 * (ids above 2^53 are bigint); `call` returns the envelope's data or throws ApiError. Redirects
 * are never followed (RedirectError). Bad options throw a ClientConfigError naming the option.
 *
 * @example
 * const client = createSignedClient({ baseUrl: "http://127.0.0.1:4010/open-api/v1", appKey: "demo-app-key", appSecret: "demo-app-secret" });
 * const orderId = await client.call("createOrder", { body: { merchantId: 10001, userId, orderType: 1, items } });
 * const order = await client.call("getOrder", { params: { path: { orderId }, query: { merchantId: 10001 } } });
 */
export function createSignedClient(options: SignedClientOptions): SignedClient {
  const given = requireOptionsObject(options, "createSignedClient");
  const baseUrl = resolveBaseUrl(given.baseUrl, "/open-api/v1");
  const appKey = requireString("appKey", given.appKey, "pass the app key issued for the app (sent as X-App-Key)");
  if (!/^[\x21-\x7e]+$/.test(appKey)) {
    throw new ClientConfigError("appKey", "appKey must be visible ASCII characters without spaces (it is sent as the X-App-Key header)");
  }
  const appSecret = requireString("appSecret", given.appSecret, "pass the app secret issued with the app key (the HMAC key; never sent)");
  const now = optionalFunction<() => number>("now", given.now);
  const nonce = optionalFunction<() => string>("nonce", given.nonce);

  const core = createClientCore({
    baseUrl,
    fetch: optionalFunction<FetchLike>("fetch", given.fetch),
    timeoutMs: resolveTimeout(given.timeoutMs),
    maxResponseBytes: resolveMaxResponseBytes(given.maxResponseBytes),
    retry: resolveRetry(given.retry),
    auth: signingMiddleware({ appKey, appSecret, now, nonce }),
    authorize: createHeaderSigner({ appKey, appSecret, now, nonce }),
    middleware: resolveMiddleware(given.middleware),
    operations: signedOperations,
    idempotentOperations: SIGNED_IDEMPOTENT_OPERATIONS,
    rateLimitedCode: SignedErrors.RATE_LIMITED.code,
    dialect: { ...ENVELOPE_DIALECTS.signed, baseUrl, other: ENVELOPE_DIALECTS.keyed },
    now: now ?? Date.now,
  });

  return clientFace("signed", baseUrl, core) as unknown as SignedClient;
}
