// Rules 1-3 of the source: string to sign = X-App-Key + X-Timestamp + X-Nonce + raw body,
// no separators, all UTF-8. The body is signed as the exact bytes sent, so a Buffer is never
// round-tripped through a JS string (that would silently replace invalid UTF-8 and change
// what is hashed).
import { describeValue, requireNonEmptyString, SigningInputError } from "./errors.js";

/** A request body as sent: JSON text, or its raw bytes. undefined (or "") means no body. */
export type SigningBody = string | Uint8Array | undefined;

/** X-Timestamp as text or as a number of seconds (turned into its decimal text). */
export type SigningTimestamp = string | number;

/** The body's bytes exactly as they will be hashed; a Uint8Array is viewed, not copied. */
export function bodyBytes(body: unknown): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new SigningInputError(
    "body",
    `body must be the raw request body as a string or Uint8Array (or undefined for no body), got ${describeValue(body)}; ` +
      "sign the exact text that is sent, not a parsed object",
  );
}

/** The decimal text of a timestamp; a number must be a non-negative safe integer. */
export function timestampText(timestamp: unknown): string {
  if (typeof timestamp === "string") return requireNonEmptyString("timestamp", timestamp);
  if (typeof timestamp === "number") {
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
      throw new SigningInputError("timestamp", `timestamp must be a whole number of seconds, got ${timestamp}`);
    }
    return String(timestamp);
  }
  throw new SigningInputError("timestamp", `timestamp must be a string or number, got ${describeValue(timestamp)}`);
}

/** The three header fields, checked, as the UTF-8 prefix of the string to sign. */
export function headerPrefix(appKey: unknown, timestamp: unknown, nonce: unknown): string {
  return (
    requireNonEmptyString("appKey", appKey) +
    timestampText(timestamp) +
    requireNonEmptyString("nonce", nonce)
  );
}

/**
 * The exact bytes that are HMAC'd: UTF-8 of appKey + timestamp + nonce, then the body bytes.
 * Use this, not stringToSign, when the body is binary.
 */
export function stringToSignBytes(
  appKey: string,
  timestamp: SigningTimestamp,
  nonce: string,
  body?: SigningBody,
): Buffer {
  return Buffer.concat([Buffer.from(headerPrefix(appKey, timestamp, nonce), "utf8"), bodyBytes(body)]);
}

/**
 * The string to sign: appKey + timestamp + nonce + body, no separators. For display, for
 * debugging a refused signature (compare it with what your code HMACs), and for the vectors.
 *
 * @example
 * ```ts
 * stringToSign("demo-app-key", "1718870400", "n0nce-8f3a2c1d", "{}"); // "demo-app-key1718870400n0nce-8f3a2c1d{}"
 * ```
 * A byte body
 * is decoded as UTF-8 here, which is lossy if the bytes are not valid UTF-8; signing itself
 * always uses the bytes (see stringToSignBytes).
 */
export function stringToSign(
  appKey: string,
  timestamp: SigningTimestamp,
  nonce: string,
  body?: SigningBody,
): string {
  const prefix = headerPrefix(appKey, timestamp, nonce);
  if (typeof body === "string") return prefix + body;
  return prefix + bodyBytes(body).toString("utf8");
}
