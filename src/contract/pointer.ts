// JSON Pointers (RFC 6901) into a bundled spec, and its local $refs followed to their targets.
import type { OpenApiDocument } from "./bundles.js";

/** References followed at most in one chain; the bundles need two or three. */
const MAX_REF_HOPS = 32;

export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** The node at a pointer ("" or "/a/b"), or undefined; only own properties are followed. */
export function atPointer(document: OpenApiDocument, pointer: string): any {
  let node: unknown = document;
  if (pointer === "") return node;
  for (const segment of pointer.slice(1).split("/")) {
    const key = unescapePointer(segment);
    if (typeof node !== "object" || node === null || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Follows local $refs from a pointer to the node they end at; the pointer returned is that node's. */
export function resolvePointer(document: OpenApiDocument, pointer: string): { pointer: string; node: any } {
  let node = atPointer(document, pointer);
  for (let hops = 0; isLocalRef(node) && hops < MAX_REF_HOPS; hops++) {
    pointer = (node.$ref as string).slice(1);
    node = atPointer(document, pointer);
  }
  return { pointer, node };
}

/** A node with its local $ref chain followed (the node itself when it is no reference). */
export function deref(document: OpenApiDocument, node: any): any {
  for (let hops = 0; isLocalRef(node) && hops < MAX_REF_HOPS; hops++) node = atPointer(document, (node.$ref as string).slice(1));
  return isLocalRef(node) ? undefined : node;
}

function isLocalRef(node: unknown): node is { $ref: string } {
  return typeof node === "object" && node !== null && typeof (node as { $ref?: unknown }).$ref === "string" && (node as { $ref: string }).$ref.startsWith("#");
}
