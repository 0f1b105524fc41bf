// Arrays longer than their schema's maxItems, found by counting before any schema validator
// runs: validating 50,000 bad items one by one (every error collected) blocks the event loop for
// seconds and yields megabytes of messages, while the count alone settles it. The limits are
// read from the spec (a tree following the schema, built once per schema), never from a list
// kept here; the walk over a value is iterative and visits only paths the schema limits.
import type { OpenApiDocument } from "./bundles.js";
import { deref } from "./pointer.js";

/** Where a body may hold arrays with a maxItems, as a tree following the schema. */
export interface ArrayLimits {
  /** The array's maxItems (when this node is an array with one). */
  maxItems?: number;
  /** Limits inside each item of the array. */
  items?: ArrayLimits;
  /** Limits inside named properties of an object. */
  properties?: Map<string, ArrayLimits>;
}

type Schema = Record<string, unknown>;

/** Schema nesting followed at most; the specs' request bodies are a few levels deep. */
const SCHEMA_DEPTH_LIMIT = 32;

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function resolve(document: OpenApiDocument, value: unknown): Schema | undefined {
  const schema: unknown = deref(document, value);
  return isSchema(schema) ? schema : undefined;
}

/** Two limits that both apply (allOf): the tighter one wins. */
function intersect(a: ArrayLimits | undefined, b: ArrayLimits | undefined): ArrayLimits | undefined {
  if (!a) return b;
  if (!b) return a;
  const node: ArrayLimits = {};
  if (a.maxItems !== undefined || b.maxItems !== undefined) node.maxItems = Math.min(a.maxItems ?? Infinity, b.maxItems ?? Infinity);
  const items = intersect(a.items, b.items);
  if (items) node.items = items;
  if (a.properties || b.properties) {
    node.properties = new Map(a.properties);
    for (const [key, child] of b.properties ?? []) node.properties.set(key, intersect(node.properties.get(key), child) as ArrayLimits);
  }
  return node;
}

/** Alternatives (oneOf / anyOf): only what holds in every branch; the looser limit. */
function union(branches: (ArrayLimits | undefined)[]): ArrayLimits | undefined {
  if (branches.length === 0 || branches.some((branch) => branch === undefined)) return undefined;
  const [first, ...rest] = branches as ArrayLimits[];
  return rest.reduce<ArrayLimits | undefined>((a, b) => {
    if (!a) return undefined;
    const node: ArrayLimits = {};
    if (a.maxItems !== undefined && b.maxItems !== undefined) node.maxItems = Math.max(a.maxItems, b.maxItems);
    const items = a.items && b.items ? union([a.items, b.items]) : undefined;
    if (items) node.items = items;
    if (a.properties && b.properties) {
      const properties = new Map<string, ArrayLimits>();
      for (const [key, child] of a.properties) {
        const both = union([child, b.properties.get(key)]);
        if (both) properties.set(key, both);
      }
      if (properties.size > 0) node.properties = properties;
    }
    return node.maxItems !== undefined || node.items || node.properties ? node : undefined;
  }, first);
}

function limitsOf(document: OpenApiDocument, value: unknown, depth: number): ArrayLimits | undefined {
  const schema = resolve(document, value);
  if (!schema || depth > SCHEMA_DEPTH_LIMIT) return undefined;
  let node: ArrayLimits | undefined;
  const own: ArrayLimits = {};
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

/** The limits of an operation's JSON request body, or undefined when it has none. */
export function requestBodyArrayLimits(document: OpenApiDocument, operation: unknown): ArrayLimits | undefined {
  const resolved = resolve(document, operation);
  const requestBody = resolved ? resolve(document, resolved.requestBody) : undefined;
  const content = requestBody && isSchema(requestBody.content) ? requestBody.content : undefined;
  const media = content && isSchema(content["application/json"]) ? content["application/json"] : undefined;
  return media ? limitsOf(document, media.schema, 0) : undefined;
}

/** The array limits inside a schema (a node or a reference), or undefined when it has none. */
export function arrayLimitsOf(document: OpenApiDocument, schema: unknown): ArrayLimits | undefined {
  return limitsOf(document, schema, 0);
}

export interface OversizeArray {
  /** Where, as "body.items[3].tags". */
  field: string;
  count: number;
  maxItems: number;
}

export function describeOversizeArray({ field, count, maxItems }: OversizeArray): string {
  return `${field} must NOT have more than ${maxItems} items (it has ${count})`;
}

function fieldName(root: string, path: readonly (string | number)[]): string {
  return path.reduce<string>((name, part) => (typeof part === "number" ? `${name}[${part}]` : `${name}.${part}`), root);
}

/** Every array of the value over its limit, in document order; `first` stops at the first one. */
export function findOversizeArrays(limits: ArrayLimits | undefined, value: unknown, options: { root?: string; first?: boolean } = {}): OversizeArray[] {
  const found: OversizeArray[] = [];
  if (!limits) return found;
  const stack: { value: unknown; node: ArrayLimits; path: (string | number)[] }[] = [{ value, node: limits, path: [] }];
  while (stack.length > 0) {
    const { value: at, node, path } = stack.pop() as (typeof stack)[number];
    if (Array.isArray(at)) {
      if (node.maxItems !== undefined && at.length > node.maxItems) {
        found.push({ field: fieldName(options.root ?? "body", path), count: at.length, maxItems: node.maxItems });
        if (options.first) return found;
        continue;
      }
      if (node.items) for (let i = at.length - 1; i >= 0; i--) stack.push({ value: at[i], node: node.items, path: [...path, i] });
    } else if (isSchema(at) && node.properties) {
      for (const [key, child] of [...node.properties].reverse()) if (Object.hasOwn(at, key)) stack.push({ value: at[key], node: child, path: [...path, key] });
    }
  }
  return found;
}
