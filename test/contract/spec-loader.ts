// The contract tests read the bundled specs through the same module the checker uses
// (src/conformance/spec.ts), so there is one way to load a spec and validate at a pointer.
import { atPointer, deref, escapePointer, loadSpec, SpecSchemas, type SpecDocument } from "../../src/conformance/spec.js";

export type Spec = SpecDocument;
export { deref, atPointer as resolvePointer, escapePointer as pointerSegment };

export function loadBundledSpec(name: "signed" | "keyed" | "sandbox-control"): Spec {
  return loadSpec(name);
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
      validate.errors = schemas.validate(pointer, value);
      return validate.errors.length === 0;
    }) as PointerValidator;
    validate.errors = null;
    return validate;
  };
}
