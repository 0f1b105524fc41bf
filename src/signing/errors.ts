// The errors of the signing part: above all SigningInputError, a caller passed something that
// cannot be signed (or a nonce store option it cannot use).
// A named class (never a bare TypeError) so callers can tell a programming mistake on their
// side apart from everything else, and so the CLI can turn it into a usage error.
import { FieldConfigError, MerchantOpenPlatformError } from "../errors.js";

/** A signing function was called with something that cannot be signed; `field` names the input at fault. */
export class SigningInputError extends FieldConfigError {
  override readonly name = "SigningInputError";
}

/** Throws unless value is a non-empty string; the message names the field. */
export function requireNonEmptyString(field: string, value: unknown): string {
  if (typeof value !== "string") {
    throw new SigningInputError(field, `${field} must be a non-empty string, got ${describeValue(value)}`);
  }
  if (value.length === 0) {
    throw new SigningInputError(field, `${field} must not be empty`);
  }
  return value;
}

/** A short description of an unexpected value for error messages; never echoes secrets in full. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return `an object (${value.constructor?.name ?? "Object"})`;
  return typeof value;
}

/** A shared nonce store (Redis) could not be reached when asked to be ready. */
export class NonceStoreUnavailableError extends MerchantOpenPlatformError {
  override readonly name = "NonceStoreUnavailableError";
}
