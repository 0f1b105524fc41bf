// The data mode: an answer is an envelope {code, msg|message, data}; the envelope code, not the
// HTTP status, says whether the call succeeded (DESIGN item 4). Success gives `data`; an error
// code becomes an ApiError with its registry entry; anything else is an UnexpectedResponseError.
import { parseJsonLossless } from "../json/index.js";
import type { EnvelopeDialect as BaseDialect } from "../envelopes.js";
import { ApiError, UnexpectedResponseError, type ApiErrorEntry } from "./errors.js";
import { isReadAnswer, type AnswerText } from "./transport.js";

/** How one interface spells its envelope (src/envelopes.ts), with what the client's messages name. */
export interface EnvelopeDialect extends BaseDialect {
  /** The client's base URL, for messages. */
  baseUrl: string;
  /** The other interface's envelope, to name it when a client was pointed at the wrong one. */
  other: BaseDialect;
}

/** What openapi-fetch answered: data on 2xx, error otherwise, and the Response (an AnswerText on call()'s direct path). */
export interface RawResult {
  data?: unknown;
  error?: unknown;
  response: Response | AnswerText;
}

/**
 * The parsed body and its text. Normally the LosslessResponse carries the text; if an app's
 * middleware replaced the Response, fall back on what openapi-fetch read (the data mode asks it
 * for text, so a success body is still exact; an error body was parsed with JSON.parse, which
 * is harmless there because error envelopes carry no ids).
 */
function readBody(result: RawResult, operationId: string): { text: string; value: unknown } {
  const { response } = result;
  if (isReadAnswer(response)) {
    try {
      return { text: response.bodyText, value: response.parsedBody() };
    } catch (error) {
      if (error instanceof UnexpectedResponseError) error.operationId = operationId;
      throw error;
    }
  }
  const raw = result.data !== undefined ? result.data : result.error;
  if (typeof raw === "string") {
    try {
      return { text: raw, value: parseJsonLossless(raw) };
    } catch (cause) {
      throw new UnexpectedResponseError({ reason: "the answer is not JSON", httpStatus: response.status, body: raw, operationId, cause });
    }
  }
  if (raw === undefined) {
    throw new UnexpectedResponseError({ reason: "the answer has an empty body, not JSON", httpStatus: response.status, body: "", operationId });
  }
  return { text: JSON.stringify(raw) ?? "", value: raw };
}

/** Returns the envelope's data on success; throws ApiError or UnexpectedResponseError otherwise. */
export function unwrapEnvelope(result: RawResult, operationId: string, dialect: EnvelopeDialect): unknown {
  const { text, value } = readBody(result, operationId);
  const httpStatus = result.response.status;
  const notEnvelope = (reason: string) => new UnexpectedResponseError({ reason, httpStatus, body: text, operationId });

  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw notEnvelope("the answer is JSON but not an envelope object");
  }
  const envelope = value as Record<string, unknown>;
  const code = envelope.code;
  if (typeof code !== "number" || !Number.isInteger(code)) {
    throw notEnvelope('the answer is not an envelope: it has no integer "code"');
  }
  if (code === dialect.successCode) {
    if (!("data" in envelope)) throw notEnvelope(`the success envelope (code ${code}) has no "data"`);
    return envelope.data;
  }
  const given = envelope[dialect.messageField] ?? envelope.msg ?? envelope.message;
  const message = typeof given === "string" ? given : "";
  const other = otherInterface(envelope, code, dialect);
  if (other) {
    // e.g. a signed client pointed at /v1: the key-based interface's 401 means nothing to the
    // signed registry, so say which interface answered and what to change.
    throw new ApiError({
      code,
      message:
        `${operationId}: the answer is an envelope of the ${other.interfaceName} (code ${code}${other.entry ? ` ${other.entry.name}` : ""}: ` +
        `${JSON.stringify(message || other.entry?.meaning || "")}), not of the ${dialect.interfaceName} this client speaks; ` +
        `check baseUrl (${dialect.baseUrl})`,
      httpStatus,
      operationId,
      entry: other.entry,
    });
  }
  return throwApiError({ code, message, httpStatus, operationId, dialect });
}

/** The other interface, when the envelope is spelled its way and its code means nothing here. */
function otherInterface(envelope: Record<string, unknown>, code: number, dialect: EnvelopeDialect) {
  const { other } = dialect;
  if (dialect.describe(code) !== undefined || !(other.messageField in envelope) || dialect.messageField in envelope) return undefined;
  const entry = other.describe(code);
  if (entry === undefined && code !== other.successCode) return undefined;
  return { interfaceName: other.interfaceName, entry: entry && { name: entry.name, meaning: entry.meaning, http: entry.http, source: entry.source } };
}

function throwApiError(input: { code: number; message: string; httpStatus: number; operationId: string; dialect: EnvelopeDialect }): never {
  const entry = input.dialect.describe(input.code);
  throw new ApiError({
    code: input.code,
    message: input.message || entry?.meaning || `error code ${input.code}`,
    httpStatus: input.httpStatus,
    operationId: input.operationId,
    entry: entry && { name: entry.name, meaning: entry.meaning, http: entry.http, source: entry.source },
  });
}
