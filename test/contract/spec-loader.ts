// The contract tests read the bundled specs through the contract layer (src/contract), as the
// sandbox, the proxy and the checker do: one way to load a spec and validate at a pointer.
import { atPointer, deref, escapePointer, loadBundle, SpecSchemas, type OpenApiDocument } from "../../src/contract/index.js";

export type Spec = OpenApiDocument;
export { deref, atPointer as resolvePointer, escapePointer as pointerSegment };

export function loadBundledSpec(name: "signed" | "keyed" | "sandbox-control"): Spec {
  return loadBundle(name);
}

/** A validator per schema pointer; `errors` holds the messages of the last call. */
export interface PointerValidator {
  (value: unknown): boolean;
  errors: string[] | null;
}

export function schemaValidator(spec: Spec, id: string): (pointer: string) => PointerValidator {
  const schemas = new SpecSchemas(spec, id.replace(/^.*\/|\.json$/g, ""));
  return (pointer) => {
    const validate = ((value: unknown) => {
      const errors = schemas.validate(pointer, value);
      validate.errors = errors;
      return errors.length === 0;
    }) as PointerValidator;
    validate.errors = null;
    return validate;
  };
}
