// Every fact about one request, typed and in one place (Prism's plain request is the model):
// each step of the pipeline reads and writes this object, never loose res.locals keys. Kept in
// res.locals under one key so that code outside the kit (a request log, a dashboard) reads the
// same object, through requestSummary (summary.ts) for what a log shows. A step of the app
// (a page, a scenario) may set what concerns it: operationId for a page, fault for a scenario.
import type { Response } from "express";
import type { SpecName } from "../contract/index.js";
import type { PrecheckedRequest, SignatureFailure } from "../signing/index.js";
import type { ServerApp } from "./callers.js";

/** Why an answer broke its spec, as the response validator said. */
export interface ResponseValidationFailure {
  message?: string;
  errors?: unknown;
}

/** The validator's verdict on an answer (undefined: valid), given numbers where the spec says int64. */
export type AnswerCheck = (res: Response, status: number, body: unknown) => ResponseValidationFailure | undefined;

/** A scenario that answered in the operation's place on purpose (the sandbox's faults), for logs and dashboards. */
export interface RequestFault {
  /** What it did, e.g. "internal-error", "timeout". */
  readonly kind: string;
}

/** A refused signature, kept for logs and dashboards (the client was told `message`). */
export interface SignatureRefusalFact {
  readonly failure: SignatureFailure;
  /** False when it was refused before a byte of the body was read. */
  readonly bodyRead: boolean;
}

export interface RequestState {
  /** performance.now() when the kit or the app's first step saw the request. */
  startedAt?: number;
  /** The body bytes exactly as sent; undefined until read (a refusal before that leaves it so). */
  rawBody?: Buffer;
  /** The signature's verdict before the body was read: the app's secrets and the parsed headers the body check goes on with. */
  signatureHead?: PrecheckedRequest;
  /** The app key whose signature was verified (signed interface). */
  appKey?: string;
  /** The app the key names, looked up once for the whole request (signed interface; verified once appKey is set). */
  app?: ServerApp;
  /** The bearer key that was accepted (key-based interface). */
  apiKey?: string;
  /** Why the signature was refused, when it was. */
  signatureRefusal?: SignatureRefusalFact;
  /** The spec and operationId served, once routed. */
  spec?: SpecName;
  operationId?: string;
  /** The route's template as the spec writes it (/orders/{orderId}), once routed. */
  route?: string;
  /** The path parameters' text as sent (decoded), once routed: int64 ids are read from it, never from a coerced number. */
  pathText?: Readonly<Record<string, string>>;
  /** The validated body: the validator's defaults applied, the spec's int64 fields as bigint; undefined when none was sent. */
  body?: unknown;
  /** The validated query and path parameters, the spec's int64 ones as bigint. */
  query?: Record<string, unknown>;
  path?: Record<string, unknown>;
  /** Set once the request passed validation: the validator's check of this request's answer. */
  answerCheck?: AnswerCheck;
  /** The envelope code of the answer sent, for request logs. */
  envelopeCode?: unknown;
  /** The envelope's msg (key-based: message) of the answer sent: what a refusal told the client. */
  envelopeMessage?: string;
  /** The exact JSON text of the envelope sent (a request log or dashboard keeps a bounded part). */
  answerText?: string;
  /** performance.now() when the answer was written. */
  answeredAt?: number;
  /** The scenario that answered in the operation's place, if any (set by the sandbox's faults). */
  fault?: RequestFault;
}

const KEY = "mop";

/** The request's state, created on first use. */
export function requestState(res: Response): RequestState {
  const locals = res.locals as { [KEY]?: RequestState };
  let state = locals[KEY];
  if (!state) {
    state = { startedAt: performance.now() };
    locals[KEY] = state;
  }
  return state;
}
