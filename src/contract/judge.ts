// Judges one answer against the contract: transport, content type, envelope, registry code,
// HTTP status mapping (DESIGN item 4) and the response schema of the operation. The checker
// judges the answers it provokes, the proxy the answers it passes on.
import { ENVELOPE_DIALECTS, envelopeCode, type Dialect } from "./envelope.js";
import { escapePointer } from "./pointer.js";
import type { SpecSchemas } from "./schemas.js";

/** An HTTP answer as received: status, headers (lower-case names), text, and the lossless parse. */
export interface ReceivedAnswer {
  status: number;
  headers: Record<string, string>;
  bodyText: string;
  /** The body parsed losslessly, when it is JSON. */
  json?: unknown;
}

export interface Verdict {
  /** Problems found; empty when the answer conforms. */
  problems: string[];
  /** The envelope code, when there is an envelope. */
  code?: number;
  success: boolean;
  data?: unknown;
  /** Spec location of the schema the body was checked against. */
  location?: string;
}

/**
 * `strictHttp` false also accepts HTTP 200 for an error envelope (servers that put every
 * envelope in a 200, which the contract's 200 oneOf allows).
 */
export function judgeAnswer(schemas: SpecSchemas, dialect: Dialect, operationId: string, exchange: { response?: ReceivedAnswer; error?: string }, strictHttp: boolean): Verdict {
  const response = exchange.response;
  if (!response) return { problems: [`no answer: ${exchange.error ?? "unknown error"}`], success: false };
  const problems: string[] = [];
  const contentType = response.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(contentType)) problems.push(`content type is "${contentType || "(none)"}", not application/json`);
  const body = response.json;
  if (body === undefined || typeof body !== "object" || body === null || Array.isArray(body)) {
    problems.push(`the body is not a JSON envelope object: ${response.bodyText.slice(0, 200)}`);
    return { problems, success: false };
  }
  const code = envelopeCode(body);
  if (code === undefined) {
    problems.push("the envelope has no integer code");
    return { problems, success: false };
  }
  const operation = schemas.operation(operationId);
  const envelope = ENVELOPE_DIALECTS[dialect];
  const success = code === envelope.successCode;
  let location: string;
  if (success) {
    if (response.status !== 200) problems.push(`HTTP ${response.status} with a success envelope; expected 200`);
    location = schemas.responseSchemaPointer(operationId, "200") ?? `${operation.pointer}/responses/200`;
  } else {
    const entry = envelope.describe(code);
    if (!entry) problems.push(`envelope code ${code} is not in the error registry (openapi/errors.yaml)`);
    else if (response.status !== entry.http && (strictHttp || response.status !== 200)) {
      problems.push(`HTTP ${response.status} for code ${code} (${entry.name}); the registry maps it to ${entry.http}${strictHttp ? "" : " (200 is also accepted)"}`);
    }
    location = (entry && schemas.responseSchemaPointer(operationId, String(entry.http))) ?? `/components/schemas/${escapePointer("ErrorEnvelope")}`;
  }
  for (const error of schemas.validate(location, body)) problems.push(`body ${error}`);
  return { problems, code, success, data: (body as { data?: unknown }).data, location: `${dialect}.openapi.json#${location}` };
}
