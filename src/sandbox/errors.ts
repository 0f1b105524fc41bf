// The sandbox refuses requests with the server kit's registry errors (src/server/errors.ts).
export { RefusalError, keyedError, signedError, type KeyedErrorName, type SignedErrorName } from "../server/index.js";
import { FieldConfigError } from "../errors.js";

/** createSandbox, its server limits or its clock was given an unusable value (`field` names it). */
export class SandboxConfigError extends FieldConfigError {
  override readonly name = "SandboxConfigError";
}
