// The bundled specs, read from the package at run time, and JSON Schema validators for any
// location inside them. The checker never restates a field list: it validates against these.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { withBigIntsAsNumbers } from "../json/index.js";
import { packageRoot } from "../util/package-root.js";

export type SpecName = "signed" | "keyed" | "sandbox-control";
// A bundled OpenAPI document, walked by JSON Pointer; typed loosely on purpose.
export type SpecDocument = Record<string, any>;

const loaded = new Map<SpecName, SpecDocument>();

export function loadSpec(name: SpecName): SpecDocument {
  let spec = loaded.get(name);
  if (!spec) {
    spec = JSON.parse(readFileSync(join(packageRoot(), "generated", `${name}.openapi.json`), "utf8")) as SpecDocument;
    loaded.set(name, spec);
  }
  return spec;
}

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function atPointer(spec: SpecDocument, pointer: string): any {
  return pointer
    .split("/")
    .slice(1)
    .reduce((node, segment) => node?.[segment.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
}

export function deref(spec: SpecDocument, node: any): any {
  while (node && typeof node.$ref === "string") node = atPointer(spec, node.$ref.slice(1));
  return node;
}

export interface OperationLocation {
  operationId: string;
  method: string;
  path: string;
  pointer: string;
  operation: any;
}

/** Validates values against schemas at JSON Pointers of one spec; bigints are checked as numbers. */
export class SpecSchemas {
  readonly operations = new Map<string, OperationLocation>();
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly id: string;

  constructor(readonly spec: SpecDocument, name: string) {
    addFormats.default(this.ajv);
    this.id = `https://merchant-open-platform.local/${name}.json`;
    // The whole document is registered so that its internal "#/components/..." refs resolve.
    this.ajv.addSchema({ ...spec, $id: this.id }, undefined, undefined, false);
    for (const [path, item] of Object.entries<any>(spec.paths ?? {})) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (operation?.operationId) {
          this.operations.set(operation.operationId, { operationId: operation.operationId, method: method.toUpperCase(), path, pointer: `/paths/${escapePointer(path)}/${method}`, operation });
        }
      }
    }
  }

  operation(operationId: string): OperationLocation {
    const found = this.operations.get(operationId);
    if (!found) throw new Error(`the spec has no operation ${operationId}`);
    return found;
  }

  /** Pointer of the JSON schema of an operation's response, following a $ref'd response. */
  responseSchemaPointer(operationId: string, status: string): string | undefined {
    let pointer = `${this.operation(operationId).pointer}/responses/${status}`;
    let node = atPointer(this.spec, pointer);
    while (node && typeof node.$ref === "string") {
      pointer = node.$ref.slice(1);
      node = atPointer(this.spec, pointer);
    }
    return node?.content?.["application/json"]?.schema ? `${pointer}/content/application~1json/schema` : undefined;
  }

  /** Error messages for a value at a schema pointer, empty when valid. */
  validate(pointer: string, value: unknown): string[] {
    let validate = this.compiled.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${this.id}#${pointer}` });
      this.compiled.set(pointer, validate);
    }
    if (validate(withBigIntsAsNumbers(value))) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || "(root)"} ${e.message ?? "is invalid"}${e.params && "additionalProperty" in e.params ? ` (${String(e.params.additionalProperty)})` : ""}`);
  }
}
