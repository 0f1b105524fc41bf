// Loads the bundled specs and compiles JSON Schema 2020-12 validators for locations inside them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { packageRoot } from "../../src/util/package-root.js";

export type Spec = Record<string, any>;

export function loadBundledSpec(name: "signed" | "keyed" | "sandbox-control"): Spec {
  return JSON.parse(readFileSync(join(packageRoot(), "generated", `${name}.openapi.json`), "utf8")) as Spec;
}

/** JSON Pointer escaping of one path segment. */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Compiles validators for schemas found at JSON Pointers of one bundled spec. */
export function schemaValidator(spec: Spec, id: string) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  // The whole spec is registered under an id so that internal "#/components/..." refs resolve.
  ajv.addSchema({ $id: id, ...spec, $schema: undefined } as object, undefined, undefined, false);
  const cache = new Map<string, ValidateFunction>();
  return (pointer: string): ValidateFunction => {
    let validate = cache.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${id}#${pointer}` });
      cache.set(pointer, validate);
    }
    return validate;
  };
}

export function resolvePointer(spec: Spec, pointer: string): any {
  return pointer
    .split("/")
    .slice(1)
    .reduce((node, segment) => node?.[segment.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
}

/** Follows $ref chains inside the spec. */
export function deref(spec: Spec, node: any): any {
  while (node && typeof node.$ref === "string") node = resolvePointer(spec, node.$ref.slice(1));
  return node;
}
