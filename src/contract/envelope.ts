// The two envelope dialects of the contract: {code, msg, data} with success code 0 (the signed
// interface, and the sandbox control API), {code, message, data} with success code 200 (the
// key-based interface). The dialects themselves are written once in src/envelopes.ts (which the
// client reads too); here, the envelopes built and read with them.
import { KEYED_SUCCESS_CODE, SIGNED_SUCCESS_CODE } from "../../generated/error-codes.js";
import { ENVELOPE_DIALECTS, type Dialect } from "../envelopes.js";

export { ENVELOPE_DIALECTS, type Dialect, type EnvelopeDialect } from "../envelopes.js";

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
