// The sandbox refuses requests with the server kit's registry errors (src/server/errors.ts).
export { RefusalError, keyedError, signedError, type KeyedErrorName, type SignedErrorName } from "../server/index.js";
import { MerchantOpenPlatformError } from "../errors.js";

/** createSandbox, its server limits or its clock was given an unusable value (`field` names it). */
export class SandboxConfigError extends MerchantOpenPlatformError {
  override readonly name = "SandboxConfigError";
  /** The option or argument at fault, e.g. "idRange" or "server.maxConnections". */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}
