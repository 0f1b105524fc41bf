// Writing answers. Every answer is an envelope: {code, msg, data} (signed interface and control
// API) or {code, message, data} (key-based interface), written losslessly.
//
// How int64 answers pass response validation: installExactJson replaces res.json, BEFORE the
// validator wraps it, with a writer (exactJson). Handlers' results go through respond(), which
// gives res.json the body itself, or a Number copy when it holds a bigint; only when that copy
// rounded an id (beyond 2^53) does the exact body wait in the request state (exactAnswer). The
// validator checks what res.json got and hands it on to the writer, which sends the exact body
// when one waits, else what it was given. A failed response validation is recorded by the
// validator's onError (validator.ts) and the writer then sends 100099 instead of the invalid body.
import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { failureEnvelope, successEnvelope, type Dialect } from "../contract/index.js";
import { announcesBody } from "./body.js";
import { toFailure, toKeyedName, type KeyedErrorName, type SignedErrorName } from "./errors.js";
import { stringifyExactJson, validatorCopy } from "./int64.js";
import type { ServerLogger } from "./logger.js";
import { responseCulprit } from "./response-culprit.js";
import { requestState } from "./state.js";

/**
 * Sends an exact body directly, bypassing res.json (and so the validator). Written with
 * Node's own writeHead/end rather than Express's res.send: an envelope needs none of send's
 * content negotiation, and so carries no ETag (an API answer is not a cacheable document).
 */
export function sendRaw(res: Response, status: number, exact: unknown): void {
  const state = requestState(res);
  const envelope = exact as { code?: unknown; msg?: unknown; message?: unknown } | null;
  state.envelopeCode = envelope?.code;
  const message = envelope?.msg ?? envelope?.message;
  state.envelopeMessage = typeof message === "string" ? message : undefined;
  const text = stringifyExactJson(exact);
  state.answerText = text;
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/**
 * Answers through res.json, so the response validator sees the body: a Number copy of it when
 * it holds a bigint, else the body itself. When the copy rounded an id (beyond 2^53), the exact
 * body waits in the request state for the writer; otherwise the copy writes the same JSON.
 */
export function respond(res: Response, status: number, exact: unknown): void {
  const checked = validatorCopy(exact);
  if (checked.rounded) requestState(res).exactAnswer = exact;
  res.statusCode = status;
  res.json(checked.value);
}

export function respondSuccess(res: Response, dialect: Dialect, data: unknown): void {
  respond(res, 200, successEnvelope(dialect, data));
}

export function installExactJson(dialect: Dialect, logger: ServerLogger) {
  // One writer per interface, shared by every answer (it finds its response as `this`).
  function exactJson(this: Response, body: unknown): Response {
    const res = this;
    const req = res.req;
    const state = requestState(res);
    const exact: unknown = state.exactAnswer !== undefined ? state.exactAnswer : body;
    state.exactAnswer = undefined;
    const invalid = state.responseValidationError;
    if (invalid !== undefined) {
      state.responseValidationError = undefined;
      const operationId = state.operationId ?? (req as Request & { openapi?: { schema?: { operationId?: string } } }).openapi?.schema?.operationId;
      // The branch the answer's code selects, alone: the validator's own list mixes in the other
      // branch of the 200's oneOf (every error code, "data must be null") and hides the culprit.
      const culprit = state.spec && operationId ? responseCulprit(state.spec, dialect, operationId, res.statusCode, exact) : undefined;
      const named = culprit && culprit.length > 0 ? ` (${operationId}: ${culprit.slice(0, 5).join("; ")}${culprit.length > 5 ? `; and ${culprit.length - 5} more` : ""})` : "";
      logger.error(`An answer failed response validation${named}; sent 100099 instead. This is a server bug.`, {
        method: req.method,
        path: req.originalUrl,
        operationId,
        status: res.statusCode,
        ...(culprit && { culprit }),
        validation: invalid.message,
        errors: invalid.errors,
        body: exact,
      });
      const entry = dialect === "keyed" ? KeyedErrors.KEYED_INTERNAL_ERROR : SignedErrors.INTERNAL_ERROR;
      sendRaw(res, entry.http, failureEnvelope(dialect, entry.code, entry.meaning));
      return res;
    }
    sendRaw(res, res.statusCode, exact);
    return res;
  }
  return (_req: Request, res: Response, next: NextFunction): void => {
    requestState(res).exactJsonInstalled = true;
    res.json = exactJson;
    next();
  };
}

const UNROUTED = new Set<string>(["PATH_NOT_FOUND", "METHOD_NOT_ALLOWED", "KEYED_PATH_NOT_FOUND", "KEYED_METHOD_NOT_ALLOWED"]);

/** The one error handler of an interface: every error becomes the envelope with the registry's code and HTTP status. */
export function envelopeErrorHandler(dialect: Dialect, logger: ServerLogger): ErrorRequestHandler {
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
    if (state.exactJsonInstalled === true && entry.http < 500 && !unrouted) respond(res, entry.http, envelope);
    else sendRaw(res, entry.http, envelope);
  };
}
