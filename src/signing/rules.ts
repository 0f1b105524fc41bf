// The format rules of the four signature headers (DESIGN item 6), in one place so the signer,
// the verifier, the CLI and the conformance checker all refuse the same things with the same
// explanation.

/** The four headers, spelled as the source document spells them. */
export const SIGNATURE_HEADERS = {
  appKey: "X-App-Key",
  timestamp: "X-Timestamp",
  nonce: "X-Nonce",
  sign: "X-Sign",
} as const;

/** The four, in the order of the string to sign (the signature last). */
export const SIGNATURE_HEADER_NAMES = [SIGNATURE_HEADERS.appKey, SIGNATURE_HEADERS.timestamp, SIGNATURE_HEADERS.nonce, SIGNATURE_HEADERS.sign] as const;

/** One of "X-App-Key", "X-Timestamp", "X-Nonce", "X-Sign". */
export type SignatureHeaderName = (typeof SIGNATURE_HEADERS)[keyof typeof SIGNATURE_HEADERS];

/** Seconds a timestamp may differ from the server's clock, in either direction. */
export const DEFAULT_WINDOW_SECONDS = 300;

/**
 * Seconds a nonce store remembers an accepted nonce, counted from its acceptance: two windows
 * and a second. Every instance sharing the store accepts a timestamp until its own clock passes
 * timestamp + window; counted from acceptance, this outlasts that for any instance up to a
 * window behind the one that accepted it (for clients in step with that one). Counted from the
 * timestamp instead, an instance 295 s ahead kept nonces for 6 s.
 */
export function nonceLifetimeSeconds(windowSeconds: number): number {
  return 2 * windowSeconds + 1;
}

/** Unix time in seconds: exactly 10 ASCII digits (good until the year 2286). */
export const TIMESTAMP_PATTERN = /^[0-9]{10}$/;

/** 8 to 64 characters of A-Z a-z 0-9 _ - (a UUID fits). */
export const NONCE_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/**
 * Standard padded Base64 of exactly 32 bytes: 43 characters and one "=". The 43rd character
 * carries 4 data bits and 2 zero bits, so its alphabet index must be a multiple of 4; any
 * other character is a non-canonical spelling that decodes to the same bytes, and accepting
 * it would let one signature travel under several X-Sign values.
 */
export const SIGN_PATTERN = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

const MAX_ECHO = 40;

/** Quotes a header value for a message, cut short so a huge header cannot bloat the answer. */
export function quoteForMessage(value: string): string {
  const cut = value.length > MAX_ECHO ? `${value.slice(0, MAX_ECHO)}…` : value;
  return JSON.stringify(cut);
}

/** Why a X-Timestamp value is malformed, or undefined when it is 10 digits. */
export function timestampProblem(value: string): string | undefined {
  if (TIMESTAMP_PATTERN.test(value)) return undefined;
  if (/^[0-9]{13}$/.test(value)) {
    return `X-Timestamp ${value} looks like milliseconds (13 digits); send Unix time in seconds (10 digits), e.g. ${value.slice(0, 10)}`;
  }
  return `X-Timestamp must be Unix time in seconds as exactly 10 ASCII digits, got ${quoteForMessage(value)}`;
}

/** Why a X-Nonce value is malformed, or undefined when it fits the rule. */
export function nonceProblem(value: string): string | undefined {
  if (NONCE_PATTERN.test(value)) return undefined;
  const rule = "X-Nonce must be 8 to 64 characters of A-Z, a-z, 0-9, underscore or hyphen";
  if (value.length < 8) return `${rule}; got ${value.length} characters`;
  if (value.length > 64) return `${rule}; got ${value.length} characters`;
  return `${rule}; got ${quoteForMessage(value)}`;
}

/** Why a X-Sign value is malformed, or undefined when it is canonical padded Base64 of 32 bytes. */
export function signProblem(value: string): string | undefined {
  if (SIGN_PATTERN.test(value)) return undefined;
  const rule = "X-Sign must be the 32-byte HMAC-SHA256 in standard padded Base64 (44 characters ending in \"=\")";
  if (/^[0-9a-fA-F]{64}$/.test(value)) {
    return `X-Sign looks hexadecimal (64 hex characters); ${rule}, not hex`;
  }
  if (/^[A-Za-z0-9_-]{43}={0,1}$/.test(value) && /[-_]/.test(value)) {
    return `X-Sign looks like Base64url ("-" or "_"); ${rule}, using the standard alphabet with "+" and "/"`;
  }
  if (/^[A-Za-z0-9+/]{43}$/.test(value)) {
    return `X-Sign lacks the "=" padding; ${rule}`;
  }
  if (/^[A-Za-z0-9+/]{43}=$/.test(value)) {
    return `X-Sign is not the canonical Base64 of 32 bytes (its last character before "=" has stray bits); ${rule}`;
  }
  return `${rule}; got ${value.length} characters`;
}
