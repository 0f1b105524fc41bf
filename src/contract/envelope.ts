// The two envelope dialects of the contract: {code, msg, data} with success code 0 (the signed
// interface, and the sandbox control API), {code, message, data} with success code 200 (the
// key-based interface). Codes come from the generated registry (openapi/errors.yaml).
import { describeKeyedError, describeSignedError, KEYED_SUCCESS_CODE, SIGNED_SUCCESS_CODE, type ErrorCodeEntry } from "../../generated/error-codes.js";

export type Dialect = "signed" | "keyed";

export interface EnvelopeDialect {
  successCode: number;
  /** The envelope's message field. */
  messageField: "msg" | "message";
  /** The registry entry of an error code of this dialect. */
  describe(code: number): (ErrorCodeEntry & { name: string }) | undefined;
  /** How documentation and messages name the interface. */
  interfaceName: string;
}

export const ENVELOPE_DIALECTS: Readonly<Record<Dialect, EnvelopeDialect>> = {
  signed: { successCode: SIGNED_SUCCESS_CODE, messageField: "msg", describe: describeSignedError, interfaceName: "signed interface (/open-api/v1)" },
  keyed: { successCode: KEYED_SUCCESS_CODE, messageField: "message", describe: describeKeyedError, interfaceName: "key-based interface (/v1)" },
};

export function successEnvelope(dialect: Dialect, data: unknown): Record<string, unknown> {
  return dialect === "keyed" ? { code: KEYED_SUCCESS_CODE, message: "success", data } : { code: SIGNED_SUCCESS_CODE, msg: "success", data };
}

export function failureEnvelope(dialect: Dialect, code: number, message: string): Record<string, unknown> {
  return dialect === "keyed" ? { code, message, data: null } : { code, msg: message, data: null };
}

/** The envelope's code as a number (a lossless parse may give a bigint), or undefined. */
export function envelopeCode(body: unknown): number | undefined {
  const code = typeof body === "object" && body !== null ? (body as { code?: unknown }).code : undefined;
  if (typeof code === "bigint") return Number(code);
  return typeof code === "number" ? code : undefined;
}

export function isSuccessCode(dialect: Dialect, code: number | undefined): boolean {
  return code === ENVELOPE_DIALECTS[dialect].successCode;
}
