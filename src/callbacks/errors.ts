// The one error the callback helpers throw: they were set up with something unusable. Found at
// setup, not on the first delivery, where it would turn every callback into a failure.
import { MerchantOpenPlatformError } from "../client/index.js";

/** createCallbackHandler or createMemoryEventStore was given an unusable option (`field` names it), or the handler is mounted after a body parser. */
export class CallbackConfigError extends MerchantOpenPlatformError {
  override readonly name = "CallbackConfigError";
  /** The option at fault, e.g. "secrets" or "onEvent". */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}
