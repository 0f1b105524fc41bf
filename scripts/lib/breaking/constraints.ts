// Keyword-level rules of one schema pair: type, format, enum/const and limits. Whether a
// change is breaking depends on who writes the value (see Direction in types.ts).
import type { Direction, Findings } from "./types.js";

export interface Place {
  out: Findings;
  direction: Direction;
  where: string;
}

function show(values: unknown[]): string {
  return values.map((v) => JSON.stringify(v)).join(", ");
}

/** The set of JSON types a schema allows, or undefined when it says nothing (any type). */
function types(schema: any): string[] | undefined {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type as string[];
  return undefined;
}

/** Is every type of `inner` allowed by `outer`? An integer is a number. */
function covers(outer: string[] | undefined, inner: string[] | undefined): boolean {
  if (outer === undefined) return true;
  if (inner === undefined) return false;
  return inner.every((t) => outer.includes(t) || (t === "integer" && outer.includes("number")));
}

/** Returns false when the type changed: the other keywords of the pair then mean nothing. */
export function compareType({ out, direction, where }: Place, o: any, n: any): boolean {
  const [before, after] = [types(o), types(n)];
  // Requests: the server must accept every type it accepted. Responses: the client must
  // know every type it can now receive (a field that may now be null is a new type).
  const ok = direction === "request" ? covers(after, before) : covers(before, after);
  if (!ok) {
    out.add("breaking", "type-changed", where, `${direction} type changed from ${before?.join("|") ?? "any"} to ${after?.join("|") ?? "any"}`);
    return false;
  }
  if (o.format !== n.format) {
    const changed = o.format !== undefined && n.format !== undefined;
    const narrowed = direction === "request" ? n.format !== undefined : o.format !== undefined;
    if (changed || narrowed) out.add("breaking", "format-changed", where, `${direction} format changed from ${o.format ?? "none"} to ${n.format ?? "none"}`);
  }
  return true;
}

function enumValues(schema: any): unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum as unknown[];
  if ("const" in schema) return [schema.const];
  return undefined;
}

function missing(from: unknown[], inside: unknown[]): unknown[] {
  const keys = new Set(inside.map((v) => JSON.stringify(v)));
  return from.filter((v) => !keys.has(JSON.stringify(v)));
}

export function compareEnum({ out, direction, where }: Place, o: any, n: any): void {
  const [before, after] = [enumValues(o), enumValues(n)];
  if (before === undefined && after === undefined) return;
  if (direction === "request") {
    if (after === undefined) return;
    if (before === undefined) out.add("breaking", "request-enum-narrowed", where, `request values are now restricted to ${show(after)}`);
    else {
      const removed = missing(before, after);
      if (removed.length > 0) out.add("breaking", "request-enum-narrowed", where, `request no longer accepts ${show(removed)}`);
    }
    return;
  }
  if (before === undefined) return;
  if (after === undefined) {
    out.add("warning", "response-enum-widened", where, `response values are no longer restricted to ${show(before)}; strict clients may reject new values`);
    return;
  }
  const added = missing(after, before);
  if (added.length > 0) out.add("warning", "response-enum-widened", where, `response may now contain ${show(added)}; strict clients (exhaustive switches, generated enums) may reject them`);
  // Not breaking: a client is never sent the value again. Worth a look, because client code
  // that acts on it (a trade status, say) becomes dead.
  const removed = missing(before, after);
  if (removed.length > 0) out.add("warning", "response-enum-value-removed", where, `response no longer sends ${show(removed)}`);
}

// For each keyword: is a smaller number the tighter limit?
const LIMITS: Array<[keyword: string, smallerIsTighter: boolean]> = [
  ["maxLength", true],
  ["maximum", true],
  ["exclusiveMaximum", true],
  ["maxItems", true],
  ["maxProperties", true],
  ["minLength", false],
  ["minimum", false],
  ["exclusiveMinimum", false],
  ["minItems", false],
  ["minProperties", false],
];

function tighter(before: number | undefined, after: number | undefined, smallerIsTighter: boolean): boolean {
  if (after === undefined) return false;
  if (before === undefined) return true;
  return smallerIsTighter ? after < before : after > before;
}

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

export function compareLimits({ out, direction, where }: Place, o: any, n: any): void {
  for (const [keyword, smallerIsTighter] of LIMITS) {
    const [before, after] = [num(o[keyword]), num(n[keyword])];
    if (before === after) continue;
    const change = `${keyword} ${before ?? "none"} → ${after ?? "none"}`;
    if (direction === "request" && tighter(before, after, smallerIsTighter)) {
      out.add("breaking", "request-limit-tightened", where, `request limit tightened: ${change}`);
    } else if (direction === "response" && tighter(after, before, smallerIsTighter)) {
      out.add("warning", "response-limit-relaxed", where, `response limit relaxed: ${change}; clients that size buffers or validate may reject`);
    }
  }
  if (direction !== "request") return;
  if (n.pattern !== undefined && n.pattern !== o.pattern) {
    // Two regular expressions cannot be compared for inclusion; any new or changed pattern counts.
    out.add("breaking", "request-pattern-changed", where, `request pattern ${o.pattern === undefined ? "added" : "changed"}: ${n.pattern}`);
  }
  if (n.multipleOf !== undefined && n.multipleOf !== o.multipleOf) {
    out.add("breaking", "request-limit-tightened", where, `request multipleOf ${o.multipleOf ?? "none"} → ${n.multipleOf}`);
  }
  if (n.uniqueItems === true && o.uniqueItems !== true) out.add("breaking", "request-limit-tightened", where, "request items must now be unique");
}
