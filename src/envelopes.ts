// The two envelope dialects of the contract, written once: {code, msg, data} with success code 0
// (the signed interface, and the sandbox control API) and {code, message, data} with success code
// 200 (the key-based interface). Codes come from the generated registry (openapi/errors.yaml).
// A leaf every part may import (like errors.ts): the contract layer re-exports it, and the client,
// which stays clear of the contract layer (no Ajv, no bundles for an app that only calls the API),
// reads it here.
import { describeKeyedError, describeSignedError, KEYED_SUCCESS_CODE, SIGNED_SUCCESS_CODE, type ErrorCodeEntry } from "../generated/error-codes.js";

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
