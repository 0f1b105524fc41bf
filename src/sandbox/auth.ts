// Who is calling: the signature check of the signed interface (done once, here, before the
// validator; the validator's own security checks are off), the bearer key of the key-based
// interface, and the optional per-caller rate limit of both.
import type { NextFunction, Request, Response } from "express";
import { SIGNATURE_WINDOW_SECONDS } from "../contract/index.js";
import { verifySignedRequest, type NonceStore, type RequestHeaders } from "../signing/index.js";
import type { SandboxClock } from "./clock.js";
import { describeRefusal } from "./dashboard/refusal.js";
import { keyedError, signedError } from "./errors.js";
import type { SandboxLogger } from "./logger.js";
import type { SandboxStore } from "./store/types.js";


/** Fixed one-second windows on the sandbox clock, so tests can step past them. */
export interface RateLimiter {
  /** Seconds to wait, or 0 when the request may pass. */
  take(key: string, limitPerSecond: number): number;
}

export function createRateLimiter(clock: SandboxClock): RateLimiter {
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

interface AuthContext {
  store: SandboxStore;
  clock: SandboxClock;
  nonceStore: NonceStore;
  rateLimiter: RateLimiter;
  logger: SandboxLogger;
}

function signatureHeaders(req: Request): RequestHeaders {
  // Node gives header names in lower case, repeated ones joined: the four are all the check reads.
  const { headers } = req;
  return { "x-app-key": headers["x-app-key"], "x-timestamp": headers["x-timestamp"], "x-nonce": headers["x-nonce"], "x-sign": headers["x-sign"] };
}

// The nonce is recorded by the full check only; the pre-check must never burn it.
const NO_NONCE_STORE: NonceStore = { useOnce: () => "fresh" };

/**
 * Before the body is read: the signature headers' presence and format, the app key and the
 * timestamp window, so an unsigned or stale request costs no body buffering. It is the same
 * check (verifySignedRequest, one implementation of the rules and messages) over an empty body:
 * every failure up to the signature itself is final; a signature mismatch only means the body,
 * not yet read, is still to be checked by verifySignature.
 */
export function precheckSignature(ctx: AuthContext) {
  return async (req: Request, _res: Response, next: NextFunction): Promise<void> => {
    const result = await verifySignedRequest({
      headers: signatureHeaders(req),
      body: "",
      secretsFor: (appKey) => ctx.store.app(appKey)?.appSecrets,
      now: () => ctx.clock.now(),
      nonceStore: NO_NONCE_STORE,
      windowSeconds: SIGNATURE_WINDOW_SECONDS,
    });
    if (result.ok || result.name === "SIGNATURE_MISMATCH") return next();
    if (result.cause !== undefined) ctx.logger.error("Signature check failed internally.", { error: result.cause });
    next(signedError(result.name, result.message));
  };
}

/** Verifies the four signature headers over the raw body; sets res.locals.appKey. */
export function verifySignature(ctx: AuthContext) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const result = await verifySignedRequest({
      headers: signatureHeaders(req),
      body: (res.locals.rawBody as Buffer | undefined) ?? "",
      secretsFor: (appKey) => ctx.store.app(appKey)?.appSecrets,
      now: () => ctx.clock.now(),
      nonceStore: ctx.nonceStore,
      windowSeconds: SIGNATURE_WINDOW_SECONDS,
    });
    if (!result.ok) {
      if (result.cause !== undefined) ctx.logger.error("Signature check failed internally.", { error: result.cause });
      // For the dashboard: what arrived and the string the sandbox expected to be signed.
      if (result.name !== "RATE_LIMITED" && result.name !== "INTERNAL_ERROR") res.locals.signatureRefusal = describeRefusal(result, req.headers, res.locals.rawBody as Buffer | undefined);
      const headers: Record<string, string> = result.name === "RATE_LIMITED" ? { "Retry-After": "5" } : {};
      return next(signedError(result.name, result.message, headers));
    }
    res.locals.appKey = result.appKey;
    const limit = ctx.store.app(result.appKey)?.rateLimitPerSecond;
    if (limit !== undefined) {
      const wait = ctx.rateLimiter.take(`app:${result.appKey}`, limit);
      if (wait > 0) {
        return next(signedError("RATE_LIMITED", `Too many requests from app key ${result.appKey}: at most ${limit} per second. Retry after ${wait} s.`, { "Retry-After": String(wait) }));
      }
    }
    next();
  };
}

/** Authorization: Bearer <API_KEY> for the key-based interface; sets res.locals.apiKey. */
export function verifyBearer(ctx: AuthContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const header = req.headers.authorization;
    const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? "");
    if (!match) {
      const why = header ? 'is not of the form "Bearer <API_KEY>"' : "is missing";
      return next(keyedError("KEYED_UNAUTHORIZED", `The Authorization header ${why}.`));
    }
    const apiKey = match[1] ?? "";
    const account = ctx.store.apiKey(apiKey);
    if (!account) return next(keyedError("KEYED_UNAUTHORIZED", "The API key is unknown or revoked."));
    res.locals.apiKey = apiKey;
    if (account.rateLimitPerSecond !== undefined) {
      const wait = ctx.rateLimiter.take(`key:${apiKey}`, account.rateLimitPerSecond);
      if (wait > 0) {
        return next(keyedError("KEYED_RATE_LIMITED", `Too many requests for this API key: at most ${account.rateLimitPerSecond} per second. Retry after ${wait} s.`, { "Retry-After": String(wait) }));
      }
    }
    next();
  };
}
