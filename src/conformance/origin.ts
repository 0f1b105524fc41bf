// Where the rule a check tests comes from: the source document (`source`), or a decision of the
// contract where the source is silent (`designed`). A check names its basis; the origin is read
// from it, and from the spec wherever the spec can say it (x-source on operations and
// parameters, x-designed-rules on the keywords of a field, the registry's `source` of a code),
// so a rule marked designed in the spec is never tagged `source` by a hand list.
import { SignedErrors } from "../../generated/error-codes.js";
import { atPointer, loadBundle, type OpenApiDocument } from "../contract/index.js";

export type CheckOrigin = "source" | "designed";

/**
 * One thing a check's verdict rests on:
 * - `source`: a rule the source document states, quoted from it (test/conformance checks
 *   that the quote is in docs/source/merchant-open-platform-interface.md);
 * - `decision`: a rule the contract designed, named as docs/decisions.md names it (a test
 *   checks that the phrase is there);
 * - `operation`: an operation of the spec: designed when it carries `x-source: designed`;
 * - `field`: a keyword of a parameter or body field: designed when the field's schema lists it
 *   in `x-designed-rules` or the field is `x-source: designed`;
 * - `error`: a registry code the rule is about (designed when the registry says so).
 */
export type RuleBasis =
  | { source: string }
  | { decision: string }
  | { operation: string; spec?: "signed" | "keyed" }
  | { field: FieldRule }
  | { error: keyof typeof SignedErrors };

export interface FieldRule {
  spec?: "signed" | "keyed";
  operationId: string;
  in: "query" | "body";
  /** A body property path, `items[].price` for a property of the items of an array. */
  name: string;
  keyword: string;
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "patch"]);

function findOperation(spec: OpenApiDocument, operationId: string): { item: any; node: any } {
  for (const item of Object.values<any>(spec.paths ?? {})) {
    for (const [method, operation] of Object.entries<any>(item ?? {})) {
      if (HTTP_METHODS.has(method) && operation?.operationId === operationId) return { item, node: operation };
    }
  }
  throw new Error(`the spec has no operation ${operationId}`);
}

const designedMark = (node: any, keyword: string) => node?.["x-source"] === "designed" || (Array.isArray(node?.["x-designed-rules"]) && node["x-designed-rules"].includes(keyword));

/** A schema node and the nodes its local $ref chain leads to (a property's own marks sit beside its $ref). */
function schemaChain(spec: OpenApiDocument, node: any): any[] {
  const nodes: any[] = [];
  for (let hops = 0; node && typeof node === "object" && hops < 16; hops++) {
    nodes.push(node);
    if (typeof node.$ref !== "string" || !node.$ref.startsWith("#")) break;
    node = atPointer(spec, node.$ref.slice(1));
  }
  return nodes;
}

const last = (nodes: any[]) => nodes[nodes.length - 1];

/** Every node that describes the field: its parameter or property wrapper, and the schemas it refers to. */
function fieldNodes(spec: OpenApiDocument, rule: FieldRule): any[] {
  const operation = findOperation(spec, rule.operationId);
  if (rule.in === "query") {
    for (const entry of [...(operation.node.parameters ?? []), ...(operation.item.parameters ?? [])]) {
      const parameter = schemaChain(spec, entry);
      const resolved = last(parameter);
      if (resolved?.in === "query" && resolved.name === rule.name) return [...parameter, ...schemaChain(spec, resolved.schema)];
    }
    throw new Error(`${rule.operationId} has no query parameter ${rule.name}`);
  }
  const body = last(schemaChain(spec, operation.node.requestBody));
  let schema = last(schemaChain(spec, body?.content?.["application/json"]?.schema));
  let nodes: any[] = [];
  for (const part of rule.name.split(".")) {
    const isArray = part.endsWith("[]");
    const property = isArray ? part.slice(0, -2) : part;
    const wrapper = schema?.properties?.[property];
    if (!wrapper) throw new Error(`${rule.operationId}'s body has no property ${rule.name}`);
    nodes = schemaChain(spec, wrapper);
    schema = last(nodes);
    if (isArray) {
      nodes = schemaChain(spec, schema.items);
      schema = last(nodes);
    }
  }
  return nodes;
}

function fieldOrigin(spec: OpenApiDocument, rule: FieldRule): CheckOrigin {
  const nodes = fieldNodes(spec, rule);
  if (!nodes.some((node) => Object.hasOwn(node, rule.keyword))) throw new Error(`${rule.operationId} ${rule.in}.${rule.name} has no ${rule.keyword} in the spec`);
  return nodes.some((node) => designedMark(node, rule.keyword)) ? "designed" : "source";
}

/** The origin of one basis, read from the bundled specs and the registry. */
export function basisOrigin(basis: RuleBasis): CheckOrigin {
  if ("source" in basis) return "source";
  if ("decision" in basis) return "designed";
  if ("error" in basis) return SignedErrors[basis.error].source === "designed" ? "designed" : "source";
  if ("operation" in basis) return findOperation(loadBundle(basis.spec ?? "signed"), basis.operation).node["x-source"] === "designed" ? "designed" : "source";
  return fieldOrigin(loadBundle(basis.field.spec ?? "signed"), basis.field);
}

/** A check is `source` only when everything its verdict rests on is the source's. */
export function originOf(basis: readonly RuleBasis[]): CheckOrigin {
  if (basis.length === 0) throw new Error("a check names at least one basis for its rule");
  return basis.some((entry) => basisOrigin(entry) === "designed") ? "designed" : "source";
}
