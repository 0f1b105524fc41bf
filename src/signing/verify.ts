// The whole server-side check of a signed request, in one place (DESIGN item 6): headers
// present, formats, app key, freshness window, signature, and only then the nonce. The order
// matters: cheap and secret-free checks first, and the nonce is recorded only after the
// signature checks out, so a forged request cannot burn a genuine client's nonce.
//
// Never throws: every outcome, including a broken secret lookup or nonce store, is a result
// the caller turns into the error envelope.
import { timingSafeEqual } from "node:crypto";
import { SignedErrors } from "../../generated/error-codes.js";
import { readSignatureHeaders, type RequestHeaders } from "./headers.js";
import { createMemoryNonceStore, type NonceStore } from "./nonce-store.js";
import {
  DEFAULT_WINDOW_SECONDS,
  nonceLifetimeSeconds,
  nonceProblem,
  quoteForMessage,
  SIGNATURE_HEADER_NAMES,
  signProblem,
  timestampProblem,
} from "./rules.js";
import { hmacSha256 } from "./sign.js";
import { bodyBytes as toBodyBytes, type SigningBody } from "./string-to-sign.js";

/** The valid secrets of an app (several while a secret is rotated), or undefined if unknown. */
export type SecretsLookup = (
  appKey: string,
) => readonly string[] | undefined | Promise<readonly string[] | undefined>;

/** What `verifySignedRequest` checks: the request as received, and where the secrets are. */
export interface VerifySignedRequestInput {
  /** The request's headers (Node's IncomingHttpHeaders, a plain object or a fetch Headers). */
  headers: RequestHeaders;
  /** The raw body exactly as received; undefined or "" for none. Not a parsed object. */
  body?: SigningBody;
  /** The app's valid secrets by app key (several during a rotation); undefined for an unknown key. */
  secretsFor: SecretsLookup;
  /** The clock in epoch milliseconds. Default Date.now. */
  now?: () => number;
  /** Where used nonces are recorded. Default: one process-wide memory store. */
  nonceStore?: NonceStore;
  /** Allowed distance of X-Timestamp from the clock, each direction. Default 300. */
  windowSeconds?: number;
}

/** An accepted request: who signed it, when, and with which of the app's secrets. */
export interface SignatureSuccess {
  ok: true;
  appKey: string;
  /** X-Timestamp in Unix seconds. */
  timestamp: number;
  nonce: string;
  /** Index in secretsFor's list of the secret that matched (useful to see rotation progress). */
  secretIndex: number;
}

/** Why a signature was refused; each is an entry of the error registry (docs/errors.md). */
export type SignatureFailureName =
  | "SIGNATURE_HEADER_MISSING"
  | "TIMESTAMP_MALFORMED"
  | "NONCE_MALFORMED"
  | "SIGNATURE_MALFORMED"
  | "APP_KEY_UNKNOWN"
  | "TIMESTAMP_OUT_OF_WINDOW"
  | "SIGNATURE_MISMATCH"
  | "NONCE_REUSED"
  | "RATE_LIMITED"
  | "INTERNAL_ERROR";

/** A refused request: the registry's code, name and HTTP status, and a message for the client. */
export type SignatureFailure = {
  [N in SignatureFailureName]: {
    ok: false;
    name: N;
    code: (typeof SignedErrors)[N]["code"];
    httpStatus: (typeof SignedErrors)[N]["http"];
    message: string;
    /** Only for INTERNAL_ERROR: the underlying error, for the server's log, not the client. */
    cause?: unknown;
  };
}[SignatureFailureName];

/** The answer of verifySignedRequest: check `ok`. */
export type SignatureVerification = SignatureSuccess | SignatureFailure;

function fail(name: SignatureFailureName, message: string, cause?: unknown): SignatureFailure {
  const entry = SignedErrors[name];
  const failure = { ok: false, name, code: entry.code, httpStatus: entry.http, message } as SignatureFailure;
  if (cause !== undefined) failure.cause = cause;
  return failure;
}

let processNonceStore: NonceStore | undefined;

function defaultNonceStore(): NonceStore {
  processNonceStore ??= createMemoryNonceStore();
  return processNonceStore;
}

function isSigningBody(body: unknown): body is SigningBody {
  return body === undefined || typeof body === "string" || body instanceof Uint8Array;
}

/** What `precheckSignedRequest` checks: everything of `verifySignedRequest` but the body and the nonce store. */
export type PrecheckSignedRequestInput = Omit<VerifySignedRequestInput, "body" | "nonceStore">;

/** A request whose headers, app key and timestamp pass: what the signature is still to be checked against. */
export interface SignaturePrecheck {
  ok: true;
  appKey: string;
  /** X-Timestamp in Unix seconds. */
  timestamp: number;
  nonce: string;
}

/**
 * The facts of a passed precheck that the full check goes on with (precheckForVerification,
 * then verifyPrecheckedRequest): what a server that checks the headers before reading the body
 * keeps, so that the headers are read, the app looked up and the window checked once.
 */
export interface PrecheckedRequest extends SignaturePrecheck {
  timestampText: string;
  signText: string;
  /** The app's usable secrets (non-empty strings) with their index in secretsFor's list. */
  secrets: { secret: string; index: number }[];
  nowMs: number;
  windowSeconds: number;
}

async function precheck(input: unknown): Promise<PrecheckedRequest | SignatureFailure> {
  // Mistakes of the integrating server come first: they would otherwise show up as a
  // confusing signature mismatch on every request.
  const { headers, secretsFor, now = Date.now, windowSeconds = DEFAULT_WINDOW_SECONDS } = (typeof input === "object" && input !== null ? input : {}) as Partial<VerifySignedRequestInput>;
  if (typeof secretsFor !== "function") return fail("INTERNAL_ERROR", "The server has no secret lookup (secretsFor) configured.");
  if (!Number.isFinite(windowSeconds) || windowSeconds < 0) {
    return fail("INTERNAL_ERROR", `The server's signature window is misconfigured (${String(windowSeconds)}).`);
  }
  let nowMs: number;
  try {
    nowMs = now();
  } catch (error) {
    return fail("INTERNAL_ERROR", "The server's clock failed.", error);
  }
  if (typeof nowMs !== "number" || !Number.isFinite(nowMs)) return fail("INTERNAL_ERROR", "The server's clock gave no time.");

  // 1. All four headers present and non-empty.
  const values = readSignatureHeaders(headers);
  const missing = SIGNATURE_HEADER_NAMES.filter((_, i) => (values[i] ?? "").trim() === "");
  if (missing.length > 0) {
    const which = missing.length === 1 ? `header ${missing[0]} is` : `headers ${missing.join(", ")} are`;
    return fail("SIGNATURE_HEADER_MISSING", `Signature ${which} missing or empty; every signed request carries X-App-Key, X-Timestamp, X-Nonce and X-Sign.`);
  }
  const [appKey, timestampText, nonce, signText] = values as [string, string, string, string];

  // 2-4. Formats, before anything costs a lookup or an HMAC.
  const timestampIssue = timestampProblem(timestampText);
  if (timestampIssue) return fail("TIMESTAMP_MALFORMED", timestampIssue);
  const nonceIssue = nonceProblem(nonce);
  if (nonceIssue) return fail("NONCE_MALFORMED", nonceIssue);
  const signIssue = signProblem(signText);
  if (signIssue) return fail("SIGNATURE_MALFORMED", signIssue);

  // 5. The app and its currently valid secrets.
  let found: unknown;
  try {
    found = await secretsFor(appKey);
  } catch (error) {
    return fail("INTERNAL_ERROR", "The server could not look up the app key.", error);
  }
  if (found !== undefined && !Array.isArray(found)) {
    return fail("INTERNAL_ERROR", "The server's secret lookup returned something other than a list of secrets.");
  }
  const secrets = ((found ?? []) as unknown[]).map((secret, index) => ({ secret, index }))
    .filter((entry): entry is { secret: string; index: number } => typeof entry.secret === "string" && entry.secret !== "");
  if (secrets.length === 0) {
    return fail("APP_KEY_UNKNOWN", `X-App-Key ${quoteForMessage(appKey)} is not a known application, or the application is disabled.`);
  }

  // 6. Freshness, both directions, in whole seconds as the timestamp is.
  const timestamp = Number(timestampText);
  const serverSeconds = Math.floor(nowMs / 1000);
  const skew = timestamp - serverSeconds;
  if (Math.abs(skew) > windowSeconds) {
    const direction = skew > 0 ? "ahead of" : "behind";
    return fail(
      "TIMESTAMP_OUT_OF_WINDOW",
      `X-Timestamp ${timestampText} is ${Math.abs(skew)} s ${direction} the server's clock (${serverSeconds}); ` +
        `the allowed difference is ${windowSeconds} s either way. Check the client's clock and sign each request when it is sent.`,
    );
  }
  return { ok: true, appKey, timestamp, nonce, timestampText, signText, secrets, nowMs, windowSeconds };
}

/**
 * The part of the server-side check that needs no body: the four headers' presence and formats,
 * the app key and the timestamp window, in the order and with the answers of
 * `verifySignedRequest`. A server runs it before reading the body, so an unsigned or stale
 * request costs no buffering; it computes no HMAC and records no nonce, so passing it proves
 * nothing about the sender: `verifySignedRequest` over the raw body must follow. Never throws.
 *
 * @example
 * ```ts
 * const early = await precheckSignedRequest({ headers: req.headers, secretsFor });
 * if (!early.ok) return refuse(early); // before a byte of the body is read
 * ```
 */
export async function precheckSignedRequest(input: PrecheckSignedRequestInput): Promise<SignaturePrecheck | SignatureFailure> {
  const result = await precheck(input);
  return result.ok ? { ok: true, appKey: result.appKey, timestamp: result.timestamp, nonce: result.nonce } : result;
}

/**
 * The server side: checks a request's four signature headers (presence, formats, app key,
 * timestamp window, signature, then the nonce) against the raw body. Never throws; answers
 * `{ ok: true, appKey, … }` or a failure with the registry's `code`, `name`, `httpStatus` and a
 * message for the client.
 *
 * @example
 * ```ts
 * const result = await verifySignedRequest({
 *   headers: req.headers,
 *   body: rawBody, // the bytes as received, not a parsed object
 *   secretsFor: (appKey) => (appKey === "demo-app-key" ? ["demo-app-secret"] : undefined),
 * });
 * if (!result.ok) res.status(result.httpStatus).json({ code: result.code, msg: result.message, data: null });
 * ```
 */
export async function verifySignedRequest(input: VerifySignedRequestInput): Promise<SignatureVerification> {
  const body = (typeof input === "object" && input !== null ? input.body : undefined) as unknown;
  if (!isSigningBody(body)) {
    return fail("INTERNAL_ERROR", "The server passed a parsed body to the signature check; it needs the raw body bytes as received.");
  }
  const checked = await precheck(input);
  if (!checked.ok) return checked;
  return verifyPrecheckedRequest(checked, body, input.nonceStore);
}

/**
 * The first half of verifySignedRequest, keeping what the second half needs: for a server that
 * runs it before reading the body and goes on with verifyPrecheckedRequest once the body is read,
 * so that nothing is checked or looked up twice. The answers are verifySignedRequest's. Never throws.
 */
export function precheckForVerification(input: PrecheckSignedRequestInput): Promise<PrecheckedRequest | SignatureFailure> {
  return precheck(input);
}

/**
 * The second half of verifySignedRequest, from a passed precheckForVerification: the signature
 * over the raw body, then the nonce. Never throws.
 */
export async function verifyPrecheckedRequest(checked: PrecheckedRequest, body: SigningBody | undefined, nonceStore?: NonceStore): Promise<SignatureVerification> {
  if (!isSigningBody(body)) {
    return fail("INTERNAL_ERROR", "The server passed a parsed body to the signature check; it needs the raw body bytes as received.");
  }
  const { appKey, timestamp, timestampText, nonce, signText, nowMs, windowSeconds } = checked;
  const store = nonceStore ?? defaultNonceStore();
  const usable = checked.secrets;

  // 7. The signature, in constant time, against the valid secrets in turn (rotation). It stops
  //    at the first that matches: only a correctly signed request stops early, and its sender
  //    learns nothing from the timing that the answer does not say; a wrong signature is
  //    compared under every secret.
  const given = Buffer.from(signText, "base64");
  const bodyBytes = toBodyBytes(body);
  const prefix = appKey + timestampText + nonce;
  let secretIndex = -1;
  for (const { secret, index } of usable) {
    const expected = hmacSha256(secret, prefix, bodyBytes);
    if (expected.length === given.length && timingSafeEqual(expected, given)) {
      secretIndex = index;
      break;
    }
  }
  if (secretIndex < 0) {
    return fail(
      "SIGNATURE_MISMATCH",
      `X-Sign does not match HMAC-SHA256 of X-App-Key + X-Timestamp + X-Nonce + body (${bodyBytes.length} body bytes, no separators) ` +
        "under any valid secret of the app. Check the field order, that the body is signed exactly as sent, and the secret.",
    );
  }

  // 8. The nonce, last. It must stay remembered as long as any instance sharing the store may
  //    accept this timestamp: a fixed lifetime from now (rules.ts), not from the timestamp,
  //    so an instance whose clock is ahead does not shorten it for the others.
  const expiresAtMs = nowMs + nonceLifetimeSeconds(windowSeconds) * 1000;
  let use: unknown;
  try {
    use = await store.useOnce(appKey, nonce, expiresAtMs, nowMs, timestamp * 1000);
  } catch (error) {
    return fail("INTERNAL_ERROR", "The server could not record the nonce.", error);
  }
  if (use === "reused") {
    return fail(
      "NONCE_REUSED",
      `X-Nonce ${quoteForMessage(nonce)} was already used by this app key within the last ${windowSeconds} s; ` +
        "use a new nonce for every request, retries included.",
    );
  }
  if (use === "full") {
    return fail(
      "RATE_LIMITED",
      "Too many signed requests from this app within the timestamp window: the server cannot remember more nonces " +
        "for it and refuses rather than risk a replay. Retry in a few seconds.",
    );
  }
  if (use === "unavailable") {
    // Fail closed: without the shared store a replay sent to another instance could pass.
    return fail(
      "RATE_LIMITED",
      "The server's replay-protection store is unreachable, so no signed request can be accepted right now. Retry in a few seconds.",
    );
  }
  if (use === "forgotten") {
    // Fail closed: the store lost the nonces of requests this old (a restart, Redis data loss),
    // so this one may be a replay. A re-signed request is dated after the loss and passes.
    return fail(
      "RATE_LIMITED",
      `The server's replay-protection store lost its memory after this request was signed (X-Timestamp ${timestamp}), so it cannot tell whether X-Nonce was used; ` +
        "such requests are refused until their timestamp leaves the window. Sign the request again with the current time and a new nonce, and retry.",
    );
  }
  if (use !== "fresh") return fail("INTERNAL_ERROR", "The server's nonce store gave an unexpected answer.");
  return { ok: true, appKey, timestamp, nonce, secretIndex };
}
