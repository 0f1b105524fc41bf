// The one error the proxy throws: startProxy was given options it cannot use. Everything that
// happens to a request (a violation, an unreachable target) is an answer or a log line instead.
import { FieldConfigError } from "../errors.js";

/** startProxy was given an option it cannot use; `field` names it. */
export class ProxyConfigError extends FieldConfigError {
  override readonly name = "ProxyConfigError";
}
