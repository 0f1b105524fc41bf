// Rules 3-4 of the source: HMAC-SHA256 keyed with the app secret (UTF-8) over the string to
// sign, the 32-byte result sent as standard padded Base64. signRequestHeaders is what a client
// calls; it also picks the timestamp and nonce so every request is fresh.
import { createHmac, randomUUID } from "node:crypto";
import { describeValue, requireNonEmptyString, SigningInputError } from "./errors.js";
import { nonceProblem, timestampProblem } from "./rules.js";
import {
  bodyBytes,
  headerPrefix,
  timestampText,
  type SigningBody,
  type SigningTimestamp,
} from "./string-to-sign.js";

/** The fields `sign` signs: exactly what goes into the string to sign, plus the secret. */
export interface SignInput {
  /** X-App-Key, the application key. */
  appKey: string;
  /** The app secret: the HMAC key (UTF-8). Never sent. */
  appSecret: string;
  /** X-Timestamp: Unix seconds, 10 digits, as text or a number. */
  timestamp: SigningTimestamp;
  /** X-Nonce: 8 to 64 of A-Z a-z 0-9 _ -. */
  nonce: string;
  /** The raw request body exactly as sent; omitted or "" for none (a GET). */
  body?: SigningBody;
}

/**
 * The four signature headers of one request. A type alias, not an interface, so it fits
 * Record<string, string> (fetch's HeadersInit, verifySignedRequest's headers) as is.
 */
export type SignedRequestHeaders = {
  "X-App-Key": string;
  "X-Timestamp": string;
  "X-Nonce": string;
  "X-Sign": string;
};

/** What `signRequestHeaders` needs: the credentials and the body; time and nonce are picked for you. */
export interface SignRequestInput {
  /** X-App-Key, the application key. */
  appKey: string;
  /** The app secret: the HMAC key (UTF-8). Never sent. */
  appSecret: string;
  /** The raw request body exactly as it will be sent (sign the same string you send); omitted for none. */
  body?: SigningBody;
  /** The clock, in epoch milliseconds; injectable so tests are deterministic. Default Date.now. */
  now?: () => number;
  /** X-Timestamp to use instead of the clock (10 digits of seconds). */
  timestamp?: SigningTimestamp;
  /** X-Nonce to use; default crypto.randomUUID(), which fits the nonce rule. */
  nonce?: string;
}

/**
 * The raw HMAC. Hashes the header prefix and the body in two updates so a large body is never
 * copied into one concatenated buffer.
 */
export function hmacSha256(appSecret: string, prefix: string, body: Buffer): Buffer {
  // Strings go in as UTF-8 without a Buffer of their own.
  const hmac = createHmac("sha256", appSecret).update(prefix, "utf8");
  return (body.length > 0 ? hmac.update(body) : hmac).digest();
}

function requireObject(what: string, value: unknown): Record<string, unknown> {
  if (typeof value !== "object" || value === null) {
    throw new SigningInputError(what, `${what} must be an object, got ${describeValue(value)}`);
  }
  return value as Record<string, unknown>;
}

/**
 * X-Sign for the given fields: Base64(HMAC-SHA256(appSecret, appKey + timestamp + nonce + body)).
 * Does not judge the timestamp or nonce format, so it can also reproduce what a faulty client
 * would send (the vectors' wrong variants); use signRequestHeaders for real requests.
 *
 * @example
 * ```ts
 * sign({ appKey: "demo-app-key", appSecret: "demo-app-secret", timestamp: "1718870400",
 *        nonce: "n0nce-8f3a2c1d", body: '{"openUserId":"user-4711"}' }); // "…=" (44 characters)
 * ```
 */
export function sign(input: SignInput): string {
  const given = requireObject("sign input", input);
  const appSecret = requireNonEmptyString("appSecret", given.appSecret);
  const prefix = headerPrefix(given.appKey, given.timestamp, given.nonce);
  return hmacSha256(appSecret, prefix, bodyBytes(given.body)).toString("base64");
}

/** The current Unix time in seconds from a millisecond clock, as 10 digits. */
function clockTimestamp(now: unknown): string {
  if (typeof now !== "function") {
    throw new SigningInputError("now", `now must be a function returning epoch milliseconds, got ${describeValue(now)}`);
  }
  const ms: unknown = now();
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
    throw new SigningInputError("now", `now() must return epoch milliseconds as a finite number, got ${String(ms)}`);
  }
  const seconds = String(Math.floor(ms / 1000));
  if (timestampProblem(seconds) !== undefined) {
    // A clock in seconds gives 7 digits here; a clock in microseconds 13.
    throw new SigningInputError("now", `now() must return epoch milliseconds; ${ms} gives the timestamp ${seconds}, not 10 digits`);
  }
  return seconds;
}

/**
 * The four signature headers for one request: X-Timestamp from the clock and a random X-Nonce
 * unless given. Refuses a timestamp or nonce the server would refuse (SigningInputError), so
 * mistakes surface at the caller. Sign the exact body text you send.
 *
 * @example
 * ```ts
 * const body = JSON.stringify({ openUserId: "user-4711" });
 * const headers = signRequestHeaders({ appKey, appSecret, body });
 * await fetch(`${baseUrl}/customers/sync`, { method: "POST", body,
 *   headers: { ...headers, "Content-Type": "application/json" } });
 * ```
 */
export function signRequestHeaders(input: SignRequestInput): SignedRequestHeaders {
  const given = requireObject("signRequestHeaders input", input);
  const appKey = requireNonEmptyString("appKey", given.appKey);
  const appSecret = requireNonEmptyString("appSecret", given.appSecret);
  const body = bodyBytes(given.body);

  const timestamp = given.timestamp === undefined ? clockTimestamp(given.now ?? Date.now) : timestampText(given.timestamp);
  const timestampIssue = timestampProblem(timestamp);
  if (timestampIssue) throw new SigningInputError("timestamp", timestampIssue);

  const nonce = given.nonce === undefined ? randomUUID() : requireNonEmptyString("nonce", given.nonce);
  const nonceIssue = nonceProblem(nonce);
  if (nonceIssue) throw new SigningInputError("nonce", nonceIssue);

  return {
    "X-App-Key": appKey,
    "X-Timestamp": timestamp,
    "X-Nonce": nonce,
    "X-Sign": hmacSha256(appSecret, appKey + timestamp + nonce, body).toString("base64"),
  };
}
