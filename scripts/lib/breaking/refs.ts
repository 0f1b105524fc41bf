// Resolves local $refs ("#/components/...") inside one bundled document. Bundles made by
// `redocly bundle` only contain local refs, so remote refs are reported, never fetched.
import type { Doc } from "./types.js";

export interface Resolved {
  node: any;
  /** The last $ref followed, used to stop on recursive schemas. */
  ref?: string;
}

function pointer(doc: Doc, ref: string): any {
  if (!ref.startsWith("#")) throw new Error(`only local $refs are supported in a bundle, found ${ref}`);
  return ref
    .slice(1)
    .split("/")
    .slice(1)
    .reduce<any>((node, segment) => node?.[decodeURIComponent(segment).replace(/~1/g, "/").replace(/~0/g, "~")], doc);
}

export function resolve(doc: Doc, node: any): Resolved {
  let ref: string | undefined;
  let current = node;
  for (let hops = 0; current && typeof current === "object" && typeof current.$ref === "string"; hops++) {
    if (hops > 50) throw new Error(`$ref chain too long at ${current.$ref}`);
    ref = current.$ref as string;
    const target = pointer(doc, ref);
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    // OpenAPI 3.1 allows siblings next to $ref (description, …); they never change the shape.
    current = target;
  }
  return ref === undefined ? { node: current } : { node: current, ref };
}

export function deref(doc: Doc, node: any): any {
  return resolve(doc, node).node;
}
