// The proxy's own answers, in the envelope dialect of the interface the request was for, so a
// client reads a proxy refusal like any other error of the API (registry codes, never a stack).
import type { ServerResponse } from "node:http";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { failureEnvelope } from "../contract/index.js";
import type { Variant } from "./request-target.js";

export type ProxyRefusal =
  /** The request breaks the contract (--fail-on-violation) or cannot be read. */
  | "invalid-request"
  /** The body is larger than the contract's 1 MiB. */
  | "body-too-large"
  /** The answer breaks the contract (--fail-on-violation) or is too large to judge. */
  | "invalid-response"
  /** The target refused the connection, or it broke off. */
  | "unreachable"
  /** The target did not answer within --timeout. */
  | "timeout"
  /** The Host is not a name the proxy serves, or a page of another origin sent a state-changing request. */
  | "site-refused";

const SIGNED: Record<ProxyRefusal, { code: number; http: number }> = {
  "invalid-request": { code: SignedErrors.VALIDATION_FAILED.code, http: SignedErrors.VALIDATION_FAILED.http },
  "body-too-large": { code: SignedErrors.BODY_TOO_LARGE.code, http: SignedErrors.BODY_TOO_LARGE.http },
  "invalid-response": { code: SignedErrors.INTERNAL_ERROR.code, http: 502 },
  unreachable: { code: SignedErrors.INTERNAL_ERROR.code, http: 502 },
  timeout: { code: SignedErrors.INTERNAL_ERROR.code, http: 504 },
  "site-refused": { code: SignedErrors.REQUEST_SITE_REFUSED.code, http: SignedErrors.REQUEST_SITE_REFUSED.http },
};

// The key-based registry has no size code; its validation code says what went wrong.
const KEYED: Record<Exclude<ProxyRefusal, "site-refused">, { code: number; http: number }> = {
  "invalid-request": { code: KeyedErrors.KEYED_VALIDATION_FAILED.code, http: KeyedErrors.KEYED_VALIDATION_FAILED.http },
  "body-too-large": { code: KeyedErrors.KEYED_VALIDATION_FAILED.code, http: 413 },
  "invalid-response": { code: KeyedErrors.KEYED_INTERNAL_ERROR.code, http: 502 },
  unreachable: { code: KeyedErrors.KEYED_INTERNAL_ERROR.code, http: 502 },
  timeout: { code: KeyedErrors.KEYED_INTERNAL_ERROR.code, http: 504 },
};

/** Status and body text of a proxy refusal. */
export function refusalAnswer(variant: Variant, refusal: ProxyRefusal, message: string): { status: number; body: string } {
  // A site refusal comes before any routing, so it is the signed 100017 on every path, as the
  // sandbox answers it: the key-based registry has no code for it.
  if (refusal === "site-refused") return { status: SIGNED[refusal].http, body: JSON.stringify(failureEnvelope("signed", SIGNED[refusal].code, message)) };
  const { code, http } = (variant === "signed" ? SIGNED : KEYED)[refusal];
  return { status: http, body: JSON.stringify(failureEnvelope(variant, code, message)) };
}

/** Sends a refusal; closeConnection when the rest of the request will not be read. */
export function sendRefusal(res: ServerResponse, variant: Variant, refusal: ProxyRefusal, message: string, closeConnection = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const { status, body } = refusalAnswer(variant, refusal, message);
  const headers: Record<string, string | number> = { "Content-Type": "application/json; charset=utf-8", "Content-Length": Buffer.byteLength(body), "X-Content-Type-Options": "nosniff" };
  if (closeConnection) headers.Connection = "close";
  res.writeHead(status, headers).end(body);
}
