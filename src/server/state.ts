// What one request carries from step to step, typed and in one place (instead of untyped
// res.locals keys): the raw body, who is calling, the exact body the handler gets, and what the
// answer writer needs. Kept in res.locals under one key so that code outside the kit (a request
// log, a dashboard) reads the same object.
import type { Response } from "express";
import type { SpecName } from "../contract/index.js";

export interface ResponseValidationFailure {
  message?: string;
  errors?: unknown;
}

export interface RequestState {
  /** The body bytes exactly as sent; undefined until read (a refusal before that leaves it so). */
  rawBody?: Buffer;
  /** The app key whose signature was verified (signed interface). */
  appKey?: string;
  /** The bearer key that was accepted (key-based interface). */
  apiKey?: string;
  /** The validated body with the validator's defaults and the exact (bigint) ids; undefined when none was sent. */
  body?: unknown;
  /** The exact answer held back while the validator checks its Number copy (int64 above 2^53). */
  exactAnswer?: unknown;
  /** Set by response validation when an answer breaks the spec: the writer then answers 100099. */
  responseValidationError?: ResponseValidationFailure;
  /** True once the exact-JSON writer replaced res.json (errors then pass response validation too). */
  exactJsonInstalled?: boolean;
  /** The envelope code of the answer sent, for request logs. */
  envelopeCode?: unknown;
  /** The envelope's msg (key-based: message) of the answer sent: what a refusal told the client. */
  envelopeMessage?: string;
  /** The exact JSON text of the envelope sent (a request log or dashboard keeps a bounded part). */
  answerText?: string;
  /** The operationId served, when one matched. */
  operationId?: string;
  /** The spec the operation is from (set with operationId), so a failed answer can be explained against it. */
  spec?: SpecName;
}

const KEY = "mop";

/** The request's state, created on first use. */
export function requestState(res: Response): RequestState {
  const locals = res.locals as { [KEY]?: RequestState };
  let state = locals[KEY];
  if (!state) {
    state = {};
    locals[KEY] = state;
  }
  return state;
}
