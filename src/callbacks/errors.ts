// The one error the callback helpers throw: they were set up with something unusable. Found at
// setup, not on the first delivery, where it would turn every callback into a failure.
import { FieldConfigError } from "../errors.js";

/** createCallbackHandler or createMemoryEventStore was given an unusable option (`field` names it), or the handler is mounted after a body parser. */
export class CallbackConfigError extends FieldConfigError {
  override readonly name = "CallbackConfigError";
}
