// Judges one answer against the contract: transport, content type, envelope, registry code,
// HTTP status mapping (DESIGN item 4) and the response schema of the operation.
import { describeKeyedError, describeSignedError } from "../../generated/error-codes.js";
import type { Exchange } from "./http.js";
import { escapePointer, type SpecSchemas } from "./spec.js";

export type Variant = "signed" | "keyed";

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

const SUCCESS = { signed: 0, keyed: 200 } as const;

export function judgeAnswer(schemas: SpecSchemas, variant: Variant, operationId: string, exchange: Exchange, strictHttp: boolean): Verdict {
  const response = exchange.response;
  if (!response) return { problems: [`no answer: ${exchange.error ?? "unknown error"}`], success: false };
  const problems: string[] = [];
  const contentType = response.headers["content-type"] ?? "";
  if (!/^application\/json\b/i.test(contentType)) problems.push(`content type is "${contentType || "(none)"}", not application/json`);
  const body = response.json as Record<string, unknown> | undefined;
  if (body === undefined || typeof body !== "object" || body === null || Array.isArray(body)) {
    problems.push(`the body is not a JSON envelope object: ${response.bodyText.slice(0, 200)}`);
    return { problems, success: false };
  }
  const code = typeof body.code === "bigint" ? Number(body.code) : body.code;
  if (typeof code !== "number") {
    problems.push("the envelope has no integer code");
    return { problems, success: false };
  }
  const operation = schemas.operation(operationId);
  const success = code === SUCCESS[variant];
  let location: string;
  if (success) {
    if (response.status !== 200) problems.push(`HTTP ${response.status} with a success envelope; expected 200`);
    location = schemas.responseSchemaPointer(operationId, "200") ?? `${operation.pointer}/responses/200`;
  } else {
    const entry = variant === "signed" ? describeSignedError(code) : describeKeyedError(code);
    if (!entry) problems.push(`envelope code ${code} is not in the error registry (openapi/errors.yaml)`);
    else if (response.status !== entry.http && (strictHttp || response.status !== 200)) {
      problems.push(`HTTP ${response.status} for code ${code} (${entry.name}); the registry maps it to ${entry.http}${strictHttp ? "" : " (200 is also accepted)"}`);
    }
    location = (entry && schemas.responseSchemaPointer(operationId, String(entry.http))) ?? `/components/schemas/${escapePointer("ErrorEnvelope")}`;
  }
  for (const error of schemas.validate(location, body)) problems.push(`body ${error}`);
  return { problems, code, success, data: body.data, location: `${variant}.openapi.json#${location}` };
}
