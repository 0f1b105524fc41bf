// Writing answers, each exactly once. Every answer is an envelope: {code, msg, data} (signed
// interface and control API) or {code, message, data} (key-based interface).
//
// An answer to a request that passed validation goes through sendAnswer: the spec's int64 fields
// of the answer's schema turn from bigint to number in place (src/json int64AsNumbers, only those
// fields are visited), the validator checks it (state.answerCheck), the JSON text is written in
// one JSON.stringify with the ids a number would round written from their bigints, and the
// bigints are put back, all in one synchronous turn. An answer that breaks the spec is logged and
// answered 100099 instead. Anything else (refusals before validation, unrouted paths, 5xx) is
// written by sendRaw, unchecked. res.json is replaced once per request (installAnswerJson), so a
// step that answers with res.json is written the same way.
import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { failureEnvelope, successEnvelope, type Dialect } from "../contract/index.js";
import { exactJsonText, int64AsNumbers, restoreInt64, stringifyExactJson, withBigIntsAsNumbers, type Int64Slots } from "../json/index.js";
import { announcesBody } from "./body.js";
import { toFailure, toKeyedName, type KeyedErrorName, type SignedErrorName } from "./errors.js";
import { answerInt64Fields } from "./int64-fields.js";
import type { ServerLogger } from "./logger.js";
import { responseCulprit } from "./response-culprit.js";
import { requestState, type RequestState, type ResponseValidationFailure } from "./state.js";

function noteEnvelope(state: RequestState, envelope: unknown, text: string): void {
  const fields = envelope as { code?: unknown; msg?: unknown; message?: unknown } | null;
  state.envelopeCode = fields?.code;
  const message = fields?.msg ?? fields?.message;
  state.envelopeMessage = typeof message === "string" ? message : undefined;
  state.answerText = text;
}

function writeText(res: Response, status: number, text: string): void {
  requestState(res).answeredAt = performance.now();
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/**
 * Sends an envelope as it is, unchecked. Written with Node's own writeHead/end rather than
 * Express's res.send: an envelope needs none of send's content negotiation, and so carries no
 * ETag (an API answer is not a cacheable document).
 */
export function sendRaw(res: Response, status: number, envelope: unknown): void {
  const text = stringifyExactJson(envelope);
  noteEnvelope(requestState(res), envelope, text);
  writeText(res, status, text);
}

/** The validator's verdict and the exact text of an answer, int64 fields shown to it as numbers. */
function checkAndWrite(res: Response, state: RequestState, status: number, envelope: unknown): { invalid?: ResponseValidationFailure; text?: string } {
  const check = state.answerCheck;
  const fields = state.spec !== undefined && state.operationId !== undefined ? answerInt64Fields(state.spec, state.operationId, status) : undefined;
  if (!check) return { text: stringifyExactJson(envelope) };
  let slots: Int64Slots | undefined;
  try {
    slots = fields ? int64AsNumbers(envelope, fields) : undefined;
  } catch {
    // A frozen answer cannot be converted in place: the validator gets a copy instead.
    const invalid = check(res, status, withBigIntsAsNumbers(envelope));
    return invalid ? { invalid } : { text: stringifyExactJson(envelope) };
  }
  try {
    const invalid = check(res, status, envelope);
    if (invalid) return { invalid };
    return { text: slots ? exactJsonText(envelope, slots) : stringifyExactJson(envelope) };
  } finally {
    if (slots) restoreInt64(slots);
  }
}

/** How an interface answers: its dialect, and where an answer that breaks the spec is reported. */
export interface AnswerWriter {
  dialect: Dialect;
  logger: ServerLogger;
}

/**
 * Answers an envelope once: checked against the spec when the request passed validation (an
 * answer that breaks it is logged and answered 100099), written with exact int64 ids.
 */
export function sendAnswer(writer: AnswerWriter, res: Response, status: number, envelope: unknown): void {
  // As express-openapi-validator's response step, an answer after the headers went out is not written.
  if (res.headersSent) return;
  const state = requestState(res);
  // As express-openapi-validator's response step: answers of 500 and above are not checked.
  const checked = status < 500 ? checkAndWrite(res, state, status, envelope) : { text: stringifyExactJson(envelope) };
  if (checked.text !== undefined) {
    noteEnvelope(state, envelope, checked.text);
    return writeText(res, status, checked.text);
  }
  const invalid = checked.invalid!;
  const req = res.req;
  const operationId = state.operationId;
  // The branch the answer's code selects, alone: the validator's own list mixes in the other
  // branch of the 200's oneOf (every error code, "data must be null") and hides the culprit.
  const culprit = state.spec && operationId ? responseCulprit(state.spec, writer.dialect, operationId, status, envelope) : undefined;
  const named = culprit && culprit.length > 0 ? ` (${operationId}: ${culprit.slice(0, 5).join("; ")}${culprit.length > 5 ? `; and ${culprit.length - 5} more` : ""})` : "";
  writer.logger.error(`An answer failed response validation${named}; sent 100099 instead. This is a server bug.`, {
    method: req.method,
    path: req.originalUrl,
    operationId,
    status,
    ...(culprit && { culprit }),
    validation: invalid.message,
    errors: invalid.errors,
    body: envelope,
  });
  const entry = writer.dialect === "keyed" ? KeyedErrors.KEYED_INTERNAL_ERROR : SignedErrors.INTERNAL_ERROR;
  sendRaw(res, entry.http, failureEnvelope(writer.dialect, entry.code, entry.meaning));
}

export function sendSuccess(writer: AnswerWriter, res: Response, data: unknown): void {
  sendAnswer(writer, res, 200, successEnvelope(writer.dialect, data));
}

/**
 * Replaces res.json, once per request, with sendAnswer: a step of the pipeline (a check, a
 * scenario) that answers with res.json is checked and written like the handlers' answers.
 */
export function installAnswerJson(writer: AnswerWriter) {
  // One function per interface, shared by every answer (it finds its response as `this`).
  function answerJson(this: Response, body: unknown): Response {
    sendAnswer(writer, this, this.statusCode, body);
    return this;
  }
  return (_req: Request, res: Response, next: NextFunction): void => {
    res.json = answerJson;
    next();
  };
}

const UNROUTED = new Set<string>(["PATH_NOT_FOUND", "METHOD_NOT_ALLOWED", "KEYED_PATH_NOT_FOUND", "KEYED_METHOD_NOT_ALLOWED"]);

/** The one error handler of an interface: every error becomes the envelope with the registry's code and HTTP status. */
export function envelopeErrorHandler(writer: AnswerWriter): ErrorRequestHandler {
  const { dialect, logger } = writer;
  return (err: unknown, req, res, _next) => {
    const state = requestState(res);
    const rawBody = state.rawBody;
    const failure = toFailure(err, { bodyWasEmpty: rawBody === undefined || rawBody.length === 0 });
    let entry: { code: number; http: number; meaning: string };
    let message = failure.message;
    if (dialect === "keyed") {
      entry = KeyedErrors[toKeyedName(failure.name)];
    } else if (failure.name in SignedErrors) {
      entry = SignedErrors[failure.name as SignedErrorName];
    } else {
      entry = SignedErrors.INTERNAL_ERROR;
      failure.internal ??= new Error(`keyed error ${failure.name as KeyedErrorName} raised on the signed interface`);
    }
    if (failure.internal !== undefined || entry.http >= 500) {
      logger.error("Internal error while answering a request. This is a server bug.", { method: req.method, path: req.originalUrl, error: failure.internal ?? err });
      message = entry.meaning;
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [name, value] of Object.entries(failure.headers)) res.set(name, value);
    // A body refused for its size is not read at all: close the connection after the answer
    // rather than read and discard up to whatever Content-Length claims. Other early refusals
    // leave an unread body of at most 1 MiB, which Node reads and discards (no buffering) so the
    // connection stays usable and the client, still sending, is not cut off mid-write.
    if (failure.name === "BODY_TOO_LARGE" && state.rawBody === undefined && announcesBody(req)) res.set("Connection", "close");
    const envelope = failureEnvelope(dialect, entry.code, message);
    // Unrouted answers (no such path or method, or an operation a partial table leaves out)
    // belong to no operation's declared responses: they are not response-validated.
    const unrouted = UNROUTED.has(failure.name);
    if (state.answerCheck !== undefined && entry.http < 500 && !unrouted) sendAnswer(writer, res, entry.http, envelope);
    else sendRaw(res, entry.http, envelope);
  };
}
