// Who is calling, checked once, before the validator (whose own security checks are off): the
// signature of the signed interface, the bearer key of the key-based one, and the optional
// per-caller rate limit of both.
import type { NextFunction, Request, Response } from "express";
import { operationRoutes, SIGNATURE_WINDOW_SECONDS } from "../contract/index.js";
import { precheckForVerification, verifyPrecheckedRequest, type NonceStore, type RequestHeaders, type SignatureFailure } from "../signing/index.js";
import { announcesBody } from "./body.js";
import { keyedError, signedError, type RefusalError } from "./errors.js";
import type { ServerLogger } from "./logger.js";
import { requestState } from "./state.js";

export type { ApiKeyAccount, ApiKeyLookup, AppLookup, ServerApp } from "./callers.js";
import type { ApiKeyLookup, AppLookup } from "./callers.js";

/** Fixed one-second windows on an injected clock, so tests can step past them. */
export interface RateLimiter {
  /** Seconds to wait, or 0 when the request may pass. */
  take(key: string, limitPerSecond: number): number;
}

export function createRateLimiter(clock: { now(): number }): RateLimiter {
  const windows = new Map<string, { second: number; count: number }>();
  return {
    take(key, limitPerSecond) {
      const now = clock.now();
      const second = Math.floor(now / 1000);
      const window = windows.get(key);
      if (!window || window.second !== second) {
        windows.set(key, { second, count: 1 });
        return 0;
      }
      window.count += 1;
      if (window.count <= limitPerSecond) return 0;
      return Math.max(1, Math.ceil(((second + 1) * 1000 - now) / 1000));
    },
  };
}

export interface SignatureCheckOptions {
  apps: AppLookup;
  nonceStore: NonceStore;
  now: () => number;
  rateLimiter?: RateLimiter;
  logger: ServerLogger;
  /** Called with every refusal of the signature itself (not rate limits or internal failures), before it is answered. */
  onSignatureRefused?: (refusal: SignatureFailure, req: Request, res: Response) => void;
}

function signatureHeaders(req: Request): RequestHeaders {
  // Node gives header names in lower case, repeated ones joined: the four are all the check reads.
  const { headers } = req;
  return { "x-app-key": headers["x-app-key"], "x-timestamp": headers["x-timestamp"], "x-nonce": headers["x-nonce"], "x-sign": headers["x-sign"] };
}

/** The request's path without the query, as the client sent it. */
function requestPath(req: Request): string {
  const url = req.originalUrl;
  const mark = url.indexOf("?");
  return mark < 0 ? url : url.slice(0, mark);
}

/**
 * A body sent to an operation that takes none (DESIGN item 15). The string to sign,
 * appKey + timestamp + nonce + body, has no separators, so the end of a used nonce moved into a
 * body ("…d12" + "" signs as "…d1" + "2") would sign again: a used GET could be replayed. So such
 * a request is refused (100009) inside the signature check, before its body is read and before
 * its nonce is recorded.
 */
function bodyOnBodylessOperation(req: Request): RefusalError | undefined {
  const route = operationRoutes("signed")(req.method, requestPath(req));
  if (route === undefined || route.takesBody) return undefined;
  const sent = req.headers["transfer-encoding"] !== undefined ? "a chunked body" : `a body of ${req.headers["content-length"]} bytes`;
  return signedError(
    "VALIDATION_FAILED",
    `body: ${route.operationId} (${req.method} ${route.path}) takes no request body, and this request sends ${sent}. ` +
      "Send it without a body (no Content-Length above 0, no Transfer-Encoding): the string to sign has no separators, so a body is refused where none belongs.",
  );
}

function refused(options: SignatureCheckOptions, failure: SignatureFailure, req: Request, res: Response, bodyRead: boolean): RefusalError {
  if (failure.cause !== undefined) options.logger.error("Signature check failed internally.", { error: failure.cause });
  if (failure.name !== "RATE_LIMITED" && failure.name !== "INTERNAL_ERROR") {
    requestState(res).signatureRefusal = { failure, bodyRead };
    options.onSignatureRefused?.(failure, req, res);
  }
  return signedError(failure.name, failure.message, failure.name === "RATE_LIMITED" ? { "Retry-After": "5" } : {});
}

/**
 * Before the body is read: the signature headers' presence and format, the app key (the app
 * looked up once for the whole request) and the timestamp window, so an unsigned or stale
 * request costs no body buffering. Its verdict (the app, its secrets, the parsed headers) waits
 * in the request state for signatureAfterBody, which goes on from it. A body sent to an
 * operation that takes none is refused here too, before anything of it is read and before its
 * nonce is recorded.
 */
export function signatureBeforeBody(options: SignatureCheckOptions) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const state = requestState(res);
    const checked = await precheckForVerification({
      headers: signatureHeaders(req),
      secretsFor: async (appKey) => {
        const app = await options.apps(appKey);
        state.app = app;
        return app?.appSecrets;
      },
      now: options.now,
      windowSeconds: SIGNATURE_WINDOW_SECONDS,
    });
    // Without a body to read, a refusal here saw the whole request.
    if (!checked.ok) return next(refused(options, checked, req, res, !announcesBody(req)));
    state.signatureHead = checked;
    next(announcesBody(req) ? bodyOnBodylessOperation(req) : undefined);
  };
}

/** Once the raw body is read: the signature over it and the nonce, from signatureBeforeBody's verdict; sets state.appKey. */
export function signatureAfterBody(options: SignatureCheckOptions) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const state = requestState(res);
    const head = state.signatureHead;
    if (!head) return next(new Error("the signature's body check ran without its header check"));
    const result = await verifyPrecheckedRequest(head, state.rawBody ?? "", options.nonceStore);
    if (!result.ok) return next(refused(options, result, req, res, true));
    state.appKey = result.appKey;
    const limit = state.app?.rateLimitPerSecond;
    if (options.rateLimiter && limit !== undefined) {
      const wait = options.rateLimiter.take(`app:${result.appKey}`, limit);
      if (wait > 0) {
        return next(signedError("RATE_LIMITED", `Too many requests from app key ${result.appKey}: at most ${limit} per second. Retry after ${wait} s.`, { "Retry-After": String(wait) }));
      }
    }
    next();
  };
}

export interface BearerCheckOptions {
  apiKeys: ApiKeyLookup;
  rateLimiter?: RateLimiter;
}

/** Authorization: Bearer <API_KEY> for the key-based interface; sets state.apiKey. */
export function verifyBearer(options: BearerCheckOptions) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.headers.authorization;
    const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? "");
    if (!match) {
      const why = header ? 'is not of the form "Bearer <API_KEY>"' : "is missing";
      return next(keyedError("KEYED_UNAUTHORIZED", `The Authorization header ${why}.`));
    }
    const apiKey = match[1] ?? "";
    const account = options.apiKeys(apiKey);
    if (!account) return next(keyedError("KEYED_UNAUTHORIZED", "The API key is unknown or revoked."));
    requestState(res).apiKey = apiKey;
    if (options.rateLimiter && account.rateLimitPerSecond !== undefined) {
      const wait = options.rateLimiter.take(`key:${apiKey}`, account.rateLimitPerSecond);
      if (wait > 0) {
        return next(keyedError("KEYED_RATE_LIMITED", `Too many requests for this API key: at most ${account.rateLimitPerSecond} per second. Retry after ${wait} s.`, { "Retry-After": String(wait) }));
      }
    }
    next();
  };
}
