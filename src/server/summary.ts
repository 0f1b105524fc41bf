// What a request log or a dashboard shows about one request, read from its state in one place
// (state.ts), once it was answered (or its connection closed unanswered): the kit's facts and
// those of the steps around it (a sandbox's fault), never loose res.locals keys.
import type { Request, Response } from "express";
import { requestState, type RequestFault, type SignatureRefusalFact } from "./state.js";

export interface RequestSummary {
  method: string;
  /** The path and query as sent. */
  url: string;
  /** The path without the query. */
  path: string;
  /** The operation served, or named by a step (a page of the app); null for none. */
  operationId: string | null;
  /** The HTTP status sent; 0 when the connection closed without an answer. */
  status: number;
  /** The envelope code of the answer; null when the answer was no envelope. */
  code: number | null;
  /** The envelope's msg (key-based: message): what the API told the client. */
  message: string | null;
  /** From the first step that saw the request to the answer (or to now, when none was written). */
  durationMs: number;
  /** The app key whose signature was verified; null when none was. */
  appKey: string | null;
  /** The bearer key that was accepted (key-based interface); null when none was. */
  apiKey: string | null;
  /** Whether the request announced a body (Content-Length above 0, or chunked). */
  bodyAnnounced: boolean;
  /** The body bytes as read; undefined when the body was not read (refused before it). */
  requestBody: Buffer | undefined;
  /** The JSON text of the envelope sent; undefined when the answer was no envelope. */
  answerText: string | undefined;
  /** Why the signature was refused, when it was. */
  signatureRefusal: SignatureRefusalFact | null;
  /** The scenario that answered in the operation's place, if any. */
  fault: RequestFault | null;
}

function announcesBody(req: Request): boolean {
  if (req.headers["transfer-encoding"] !== undefined) return true;
  const length = Number(req.headers["content-length"]);
  return Number.isFinite(length) && length > 0;
}

/** The summary of a request from its state; call it once the response finished or closed. */
export function requestSummary(req: Request, res: Response): RequestSummary {
  const state = requestState(res);
  const url = req.originalUrl;
  const query = url.indexOf("?");
  const code = state.envelopeCode;
  const ended = state.answeredAt ?? performance.now();
  return {
    method: req.method,
    url,
    path: query === -1 ? url : url.slice(0, query),
    operationId: state.operationId ?? null,
    status: res.headersSent ? res.statusCode : 0,
    code: typeof code === "number" ? code : null,
    message: state.envelopeMessage ?? null,
    durationMs: Math.round((ended - (state.startedAt ?? ended)) * 10) / 10,
    appKey: state.appKey ?? null,
    apiKey: state.apiKey ?? null,
    bodyAnnounced: announcesBody(req),
    requestBody: state.rawBody,
    answerText: state.answerText,
    signatureRefusal: state.signatureRefusal ?? null,
    fault: state.fault ?? null,
  };
}
