// The value given to the JSON helpers cannot be read or written: text that is not a string, a
// circular structure. A TypeError, as JSON.parse and JSON.stringify throw for the same mistakes,
// and marked as one of the package's errors (src/errors.ts).
import { markAsPlatformError } from "../errors.js";

/** parseJsonLossless was given something other than text, or stringifyJson a circular structure. */
export class JsonValueError extends TypeError {
  override readonly name = "JsonValueError";
}
markAsPlatformError(JsonValueError);
