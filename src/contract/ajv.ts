// The one Ajv set-up: JSON Schema 2020-12 (OpenAPI 3.1), every error collected, formats on.
// strict is off because the specs carry OpenAPI keywords (x-*, discriminator, example) that
// are not JSON Schema.
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

export type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";

export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return ajv;
}

/** "<where> <message>" for one Ajv error, naming an unexpected property. */
export function describeSchemaError(error: ErrorObject, root = "(root)"): string {
  const extra = error.params && "additionalProperty" in error.params ? ` (${String(error.params.additionalProperty)})` : "";
  return `${error.instancePath || root} ${error.message ?? "is invalid"}${extra}`;
}
