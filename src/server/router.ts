// The server kit's routers: give them typed handlers and the callers' lookups, get one Express
// request handler per interface that does, in order and in one place each:
//   Content-Length over 1 MiB (100013) → the caller (signature headers, app key and timestamp
//   window before any body byte is read; then the signature over the raw body and the nonce;
//   or the bearer key) → rate limit (100006) → content type (100014) → lossless JSON →
//   express-openapi-validator (routing, 100015/100016, request rules 100009, responses) →
//   your checks → the handler by operationId → the success envelope, int64-exact;
//   every error → the envelope with the registry's code and HTTP status.
// Mount each where its spec's servers say: app.use("/open-api", signed), app.use("/v1", keyed).
import type { Request, RequestHandler, Response } from "express";
import type { Dialect, SpecName } from "../contract/index.js";
import { createMemoryNonceStore, type NonceStore, type SignatureFailure } from "../signing/index.js";
import { signatureAfterBody, signatureBeforeBody, verifyBearer, type ApiKeyLookup, type AppLookup, type RateLimiter } from "./auth.js";
import type { ServerApp } from "./callers.js";
import { captureRawBody, refuseOversizedBody, requireJson } from "./body.js";
import { dispatchOperations, pathNotFound, specValidator, type DispatchHandler, type RequestFactsOf } from "./dispatch.js";
import { envelopeErrorHandler, installAnswerJson, type AnswerWriter } from "./answer.js";
import { ServerConfigError } from "./errors.js";
import type { KeyedHandlers, SignedHandlers } from "./handlers.js";
import { serverLogger, type ServerLogger } from "./logger.js";
import { logNonceStoreFailures } from "./nonce-store-log.js";
import { pipeline } from "./pipeline.js";
import { validatedRequest } from "./request-step.js";
import { requestState } from "./state.js";
import { keyedOperations } from "../../generated/keyed.operations.js";
import { signedOperations } from "../../generated/signed.operations.js";

interface CommonRouterOptions {
  /** Where internal errors and answers that break the spec are reported. Default: JSON lines on stderr. */
  logger?: ServerLogger;
  /** Per-caller rate limits (an app's rateLimitPerSecond, an account's); none when undefined. */
  rateLimiter?: RateLimiter;
  /**
   * Steps after validation and before the handler, e.g. a check of a business rule on the body
   * (requestState(res).body); an error passed to next() is answered as the envelope.
   */
  checks?: readonly RequestHandler[];
}

/**
 * A complete table by default (a missing handler does not compile, and is refused at start-up
 * for JavaScript callers); with `partial: true` the operations left out answer 100015 (404,
 * "This server does not implement …"), as a path the server does not serve (docs/decisions.md).
 */
type Table<Full> = { handlers: Full; partial?: false } | { handlers: Partial<Full>; partial: true };

export type SignedRouterOptions<App extends ServerApp = ServerApp> = CommonRouterOptions &
  Table<SignedHandlers<App>> & {
    /** App key → its secrets (and merchants, permissions, rate limit, for your handlers, which get it as `app`). */
    apps: AppLookup<App>;
    /** Where used nonces are kept for the signature window. Default: this process's memory; share one (createRedisNonceStore) between instances. */
    nonceStore?: NonceStore;
    /** The clock the timestamp window is checked against, in epoch ms. Default Date.now. */
    now?: () => number;
    /** Accept http:// notifyUrls on loopback hosts (a local test server's callbacks). Default false. */
    allowInsecureNotify?: boolean;
    /** Sees each refused signature (a dashboard, an audit log); the refusal is answered anyway. */
    onSignatureRefused?: (refusal: SignatureFailure, req: Request, res: Response) => void;
  };

export type KeyedRouterOptions = CommonRouterOptions &
  Table<KeyedHandlers> & {
    /** API key → the account, or undefined for an unknown or revoked key. */
    apiKeys: ApiKeyLookup;
  };

function checkTable(handlers: object, operationIds: readonly string[], partial: boolean | undefined): void {
  const unknown = Object.keys(handlers).filter((id) => !operationIds.includes(id));
  if (unknown.length > 0) throw new ServerConfigError("handlers", `The handler table has operations the spec lacks: ${unknown.join(", ")}.`);
  if (partial === true) return;
  const missing = operationIds.filter((id) => typeof (handlers as Record<string, unknown>)[id] !== "function");
  if (missing.length > 0) throw new ServerConfigError("handlers", `The handler table lacks ${missing.join(", ")}; give every operation a handler, or pass partial: true to answer them 100015.`);
}

export interface OperationRouterOptions {
  spec: SpecName;
  dialect: Dialect;
  logger: ServerLogger;
  /** Steps before anything else (a site guard). */
  first?: readonly RequestHandler[];
  /** Steps before the body is read: the caller's headers. */
  beforeBody: readonly RequestHandler[];
  /** Steps once the raw body is read, before it is parsed (the signature over it). */
  afterBody: readonly RequestHandler[];
  checks: readonly RequestHandler[];
  handlers: Readonly<Record<string, DispatchHandler | undefined>>;
  facts: RequestFactsOf;
  allowInsecureNotify?: boolean;
}

/** The pipeline every interface shares, over any bundled spec (the sandbox's control API uses it too). */
export function createOperationRouter(options: OperationRouterOptions): RequestHandler {
  const writer: AnswerWriter = { dialect: options.dialect, logger: serverLogger(options.logger) };
  return pipeline(
    [
      ...(options.first ?? []),
      refuseOversizedBody,
      ...options.beforeBody,
      captureRawBody,
      ...options.afterBody,
      requireJson,
      installAnswerJson(writer),
      validatedRequest(specValidator(options.spec), { allowInsecureNotify: options.allowInsecureNotify === true }),
      ...options.checks,
      dispatchOperations({ spec: options.spec, writer, handlers: options.handlers, facts: options.facts }),
      pathNotFound,
    ],
    envelopeErrorHandler(writer),
  );
}

const signedFacts: RequestFactsOf = (_req: Request, res: Response) => {
  const state = requestState(res);
  return { appKey: state.appKey, app: state.app };
};
const keyedFacts: RequestFactsOf = (_req: Request, res: Response) => ({ apiKey: requestState(res).apiKey });

/** The signed interface (/open-api/v1 and /open-api): mount it at "/open-api". */
export function createSignedRouter<App extends ServerApp = ServerApp>(options: SignedRouterOptions<App>): RequestHandler {
  checkTable(options.handlers, Object.keys(signedOperations), options.partial);
  const logger = serverLogger(options.logger);
  const signature = {
    apps: options.apps,
    nonceStore: logNonceStoreFailures(options.nonceStore ?? createMemoryNonceStore(), logger, options.now ?? Date.now),
    now: options.now ?? Date.now,
    logger,
    ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}),
    ...(options.onSignatureRefused ? { onSignatureRefused: options.onSignatureRefused } : {}),
  };
  return createOperationRouter({
    spec: "signed",
    dialect: "signed",
    logger,
    beforeBody: [signatureBeforeBody(signature)],
    afterBody: [signatureAfterBody(signature)],
    checks: options.checks ?? [],
    handlers: options.handlers as Record<string, DispatchHandler | undefined>,
    facts: signedFacts,
    allowInsecureNotify: options.allowInsecureNotify === true,
  });
}

/** The key-based interface (/v1): mount it at "/v1". */
export function createKeyedRouter(options: KeyedRouterOptions): RequestHandler {
  checkTable(options.handlers, Object.keys(keyedOperations), options.partial);
  const logger = serverLogger(options.logger);
  return createOperationRouter({
    spec: "keyed",
    dialect: "keyed",
    logger,
    beforeBody: [verifyBearer({ apiKeys: options.apiKeys, ...(options.rateLimiter ? { rateLimiter: options.rateLimiter } : {}) })],
    afterBody: [],
    checks: options.checks ?? [],
    handlers: options.handlers as Record<string, DispatchHandler | undefined>,
    facts: keyedFacts,
  });
}
