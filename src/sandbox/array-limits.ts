// Arrays over their spec's maxItems are refused before schema validation. The validator reports
// every error of every item (allErrors), so a body of 50,000 bad items costs seconds of event
// loop and megabytes of message; the count alone settles it. The limits come from the loaded
// spec (each operation's request body schema), never from a list kept here.
import type { Request } from "express";
import { signedError } from "./errors.js";

/** Where a body may hold arrays with a maxItems, as a tree following the schema. */
interface LimitNode {
  /** The array's maxItems (when this node is an array with one). */
  maxItems?: number;
  /** Limits inside each item of the array. */
  items?: LimitNode;
  /** Limits inside named properties of an object. */
  properties?: Map<string, LimitNode>;
}

type Schema = Record<string, unknown>;

/** Schema nesting followed at most; the specs' request bodies are a few levels deep. */
const SCHEMA_DEPTH_LIMIT = 32;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function resolve(document: Schema, value: unknown): Schema | undefined {
  let schema = value;
  // Follow local references (the bundled specs have no others); a chain is bounded.
  for (let hops = 0; isSchema(schema) && typeof schema.$ref === "string" && hops < 16; hops++) {
    const ref = schema.$ref;
    if (!ref.startsWith("#/")) return undefined;
    schema = ref
      .slice(2)
      .split("/")
      .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce<unknown>((node, key) => (isSchema(node) ? node[key] : undefined), document);
  }
  return isSchema(schema) ? schema : undefined;
}

/** Two limits that both apply (allOf): the tighter one wins. */
function intersect(a: LimitNode | undefined, b: LimitNode | undefined): LimitNode | undefined {
  if (!a) return b;
  if (!b) return a;
  const node: LimitNode = {};
  if (a.maxItems !== undefined || b.maxItems !== undefined) node.maxItems = Math.min(a.maxItems ?? Infinity, b.maxItems ?? Infinity);
  const items = intersect(a.items, b.items);
  if (items) node.items = items;
  if (a.properties || b.properties) {
    node.properties = new Map(a.properties);
    for (const [key, child] of b.properties ?? []) node.properties.set(key, intersect(node.properties.get(key), child) as LimitNode);
  }
  return node;
}

/** Alternatives (oneOf / anyOf): only what holds in every branch; the looser limit. */
function union(branches: (LimitNode | undefined)[]): LimitNode | undefined {
  if (branches.length === 0 || branches.some((branch) => branch === undefined)) return undefined;
  const [first, ...rest] = branches as LimitNode[];
  return rest.reduce<LimitNode | undefined>((a, b) => {
    if (!a) return undefined;
    const node: LimitNode = {};
    if (a.maxItems !== undefined && b.maxItems !== undefined) node.maxItems = Math.max(a.maxItems, b.maxItems);
    const items = a.items && b.items ? union([a.items, b.items]) : undefined;
    if (items) node.items = items;
    if (a.properties && b.properties) {
      const properties = new Map<string, LimitNode>();
      for (const [key, child] of a.properties) {
        const both = union([child, b.properties.get(key)]);
        if (both) properties.set(key, both);
      }
      if (properties.size > 0) node.properties = properties;
    }
    return node.maxItems !== undefined || node.items || node.properties ? node : undefined;
  }, first);
}

function limitsOf(document: Schema, value: unknown, depth: number): LimitNode | undefined {
  const schema = resolve(document, value);
  if (!schema || depth > SCHEMA_DEPTH_LIMIT) return undefined;
  let node: LimitNode | undefined;
  const own: LimitNode = {};
  if (typeof schema.maxItems === "number") own.maxItems = schema.maxItems;
  const items = schema.items !== undefined ? limitsOf(document, schema.items, depth + 1) : undefined;
  if (items) own.items = items;
  if (isSchema(schema.properties)) {
    for (const [key, child] of Object.entries(schema.properties)) {
      const limit = limitsOf(document, child, depth + 1);
      if (limit) (own.properties ??= new Map()).set(key, limit);
    }
  }
  if (own.maxItems !== undefined || own.items || own.properties) node = own;
  if (Array.isArray(schema.allOf)) for (const branch of schema.allOf) node = intersect(node, limitsOf(document, branch, depth + 1));
  for (const keyword of ["oneOf", "anyOf"] as const) {
    const branches = schema[keyword];
    if (Array.isArray(branches)) node = intersect(node, union(branches.map((branch) => limitsOf(document, branch, depth + 1))));
  }
  return node;
}

function requestBodyLimits(document: Schema, operation: Schema): LimitNode | undefined {
  const requestBody = resolve(document, operation.requestBody);
  const content = requestBody && isSchema(requestBody.content) ? requestBody.content : undefined;
  const media = content && isSchema(content["application/json"]) ? content["application/json"] : undefined;
  return media ? limitsOf(document, media.schema, 0) : undefined;
}

function fieldName(path: readonly (string | number)[]): string {
  return path.reduce<string>((name, part) => (typeof part === "number" ? `${name}[${part}]` : `${name}.${part}`), "body");
}

/**
 * A check of one spec: for the operation the validator matched (req.openapi.schema), throws
 * 100009 naming the first array over its maxItems. The body walk visits only paths the
 * schema limits, iteratively.
 */
export function createArrayLimitCheck(document: Schema): (req: Request) => void {
  const byOperation = new WeakMap<object, LimitNode | null>();
  return (req) => {
    const operation = (req as Request & { openapi?: { schema?: unknown } }).openapi?.schema;
    if (!isSchema(operation) || req.body === undefined) return;
    let limits = byOperation.get(operation);
    if (limits === undefined) {
      limits = requestBodyLimits(document, operation) ?? null;
      byOperation.set(operation, limits);
    }
    if (limits === null) return;
    const stack: { value: unknown; node: LimitNode; path: (string | number)[] }[] = [{ value: req.body, node: limits, path: [] }];
    while (stack.length > 0) {
      const { value, node, path } = stack.pop() as (typeof stack)[number];
      if (Array.isArray(value)) {
        if (node.maxItems !== undefined && value.length > node.maxItems) {
          throw signedError("VALIDATION_FAILED", `${fieldName(path)} must NOT have more than ${node.maxItems} items (it has ${value.length})`);
        }
        if (node.items) for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], node: node.items, path: [...path, i] });
      } else if (isSchema(value) && node.properties) {
        for (const [key, child] of node.properties) if (Object.hasOwn(value, key)) stack.push({ value: value[key], node: child, path: [...path, key] });
      }
    }
  };
}
