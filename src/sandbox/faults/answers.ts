// What a fault sends instead of the operation's answer: the envelope, HTTP status and
// Retry-After of each answering kind, in the interface's own dialect and registry codes.
// `unavailable` has no code of its own in the registry, and a scenario adds none to the public
// contract (DESIGN item 16): it is HTTP 503 with the internal-error code, told apart by the
// status and its Retry-After (docs/decisions.md).
import type { Response } from "express";
import { KeyedErrors, SignedErrors } from "../../../generated/error-codes.js";
import { failureEnvelope, type Dialect } from "../../contract/index.js";
import { sendRaw } from "../../server/internal.js";
import type { FaultBehaviour, FaultKind } from "./table.js";

/** The kinds that answer with an envelope (the others delay, withhold or drop the answer). */
export type AnsweringKind = Extract<FaultKind, "rate-limited" | "internal-error" | "unavailable">;

export function isAnsweringKind(kind: FaultKind): kind is AnsweringKind {
  return kind === "rate-limited" || kind === "internal-error" || kind === "unavailable";
}

/** Retry-After of rate-limited and unavailable when the fault names none. */
export const DEFAULT_RETRY_AFTER_SECONDS = 1;

function entryOf(kind: AnsweringKind, dialect: Dialect): { code: number; http: number } {
  if (kind === "rate-limited") return dialect === "keyed" ? KeyedErrors.KEYED_RATE_LIMITED : SignedErrors.RATE_LIMITED;
  const internal = dialect === "keyed" ? KeyedErrors.KEYED_INTERNAL_ERROR : SignedErrors.INTERNAL_ERROR;
  return kind === "unavailable" ? { code: internal.code, http: 503 } : internal;
}

/** Headers an answer of the operation set that the fault's answer must not carry over. */
const ANSWER_HEADERS = ["content-type", "content-length", "retry-after", "etag"];

/**
 * Sends the fault's answer. `about` says which fault and what became of the operation, so the
 * developer reading the message knows it was the sandbox, on purpose.
 */
export function sendFaultAnswer(res: Response, dialect: Dialect, behaviour: FaultBehaviour & { kind: AnsweringKind }, about: string): void {
  const entry = entryOf(behaviour.kind, dialect);
  for (const name of ANSWER_HEADERS) res.removeHeader(name);
  let message: string;
  if (behaviour.kind === "internal-error") {
    message = `An unexpected server error. ${about}`;
  } else {
    const seconds = behaviour.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
    res.setHeader("Retry-After", String(seconds));
    message = behaviour.kind === "rate-limited" ? `Too many requests; retry after ${seconds} s. ${about}` : `The service is temporarily unavailable; retry after ${seconds} s. ${about}`;
  }
  sendRaw(res, entry.http, failureEnvelope(dialect, entry.code, message));
}
