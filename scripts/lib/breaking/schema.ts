// Compares two JSON Schemas (OpenAPI 3.1) structurally: objects, arrays, oneOf/anyOf,
// allOf, if/then/else, delegating keyword rules to constraints.ts.
import { compareEnum, compareLimits, compareType, type Place } from "./constraints.js";
import { resolve } from "./refs.js";
import type { Direction, Doc, Findings } from "./types.js";

export interface SchemaContext {
  oldDoc: Doc;
  newDoc: Doc;
  out: Findings;
  /**
   * Pairs of $refs already compared (per direction), so recursive schemas terminate. It also
   * reports a change in a shared schema once, at the first place that uses it.
   */
  seen: Set<string>;
}

export function schemaContext(oldDoc: Doc, newDoc: Doc, out: Findings): SchemaContext {
  return { oldDoc, newDoc, out, seen: new Set() };
}

function asObject(schema: unknown): Record<string, any> {
  return schema && typeof schema === "object" ? (schema as Record<string, any>) : {};
}

/** allOf parts merged into one schema: properties and required lists add up. */
function flattenAllOf(doc: Doc, schema: Record<string, any>, depth = 0): Record<string, any> {
  if (!Array.isArray(schema.allOf) || depth > 10) return schema;
  const { allOf, ...rest } = schema;
  const merged: Record<string, any> = { ...rest, properties: { ...asObject(rest.properties) }, required: [...(rest.required ?? [])] };
  for (const part of allOf as unknown[]) {
    const flat = flattenAllOf(doc, asObject(resolve(doc, part).node), depth + 1);
    for (const [key, value] of Object.entries(flat)) {
      if (key === "properties") Object.assign(merged.properties, value);
      else if (key === "required") merged.required.push(...(value as string[]));
      else if (!(key in merged)) merged[key] = value;
    }
  }
  if (Object.keys(merged.properties).length === 0) delete merged.properties;
  if (merged.required.length === 0) delete merged.required;
  return merged;
}

function branches(schema: Record<string, any>): unknown[] | undefined {
  return (Array.isArray(schema.oneOf) ? schema.oneOf : Array.isArray(schema.anyOf) ? schema.anyOf : undefined) as unknown[] | undefined;
}

/** How branches are paired across versions: by $ref target, else by declared type. */
function branchKey(branch: unknown): string {
  const b = asObject(branch);
  if (typeof b.$ref === "string") return `ref:${b.$ref}`;
  return `type:${JSON.stringify(b.type ?? null)}:${JSON.stringify(b.const ?? b.enum ?? null)}`;
}

function compareBranches(ctx: SchemaContext, o: unknown[], n: unknown[], direction: Direction, where: string): void {
  const unmatchedNew = new Map(n.map((b) => [branchKey(b), b]));
  const unmatchedOld: unknown[] = [];
  for (const ob of o) {
    const key = branchKey(ob);
    const nb = unmatchedNew.get(key);
    if (nb === undefined) unmatchedOld.push(ob);
    else {
      unmatchedNew.delete(key);
      compareSchema(ctx, ob, nb, direction, where);
    }
  }
  // One branch on each side left over (e.g. a renamed schema): compare them with each other.
  if (unmatchedOld.length === 1 && unmatchedNew.size === 1) {
    compareSchema(ctx, unmatchedOld[0], [...unmatchedNew.values()][0], direction, where);
    return;
  }
  if (direction === "request" && unmatchedOld.length > 0) {
    ctx.out.add("breaking", "request-branch-removed", where, `request no longer accepts the alternative(s) ${unmatchedOld.map(branchKey).join(", ")}`);
  }
  if (direction === "response" && unmatchedNew.size > 0) {
    ctx.out.add("breaking", "response-branch-added", where, `response may now be ${[...unmatchedNew.keys()].join(", ")}, which clients do not expect`);
  }
}

function join(where: string, segment: string): string {
  return where.endsWith(":") || where === "" ? `${where} ${segment}`.trim() : `${where}.${segment}`;
}

function compareObject(ctx: SchemaContext, o: Record<string, any>, n: Record<string, any>, direction: Direction, where: string): void {
  const [op, np] = [asObject(o.properties), asObject(n.properties)];
  const [or, nr] = [new Set<string>(o.required ?? []), new Set<string>(n.required ?? [])];
  const names = new Set([...Object.keys(op), ...Object.keys(np), ...or, ...nr]);
  for (const name of names) {
    const at = join(where, name);
    const [wasDefined, isDefined] = [name in op || or.has(name), name in np || nr.has(name)];
    if (wasDefined && !isDefined) {
      ctx.out.add("breaking", `${direction}-field-removed`, at, `${direction} field removed`);
      continue;
    }
    if (direction === "request" && nr.has(name) && !or.has(name)) {
      ctx.out.add("breaking", "request-field-required", at, wasDefined ? "request field became required" : "new required request field");
    }
    if (direction === "response" && or.has(name) && !nr.has(name)) {
      ctx.out.add("breaking", "response-field-optional", at, "response field is no longer required: clients may find it missing");
    }
    // A name only listed in `required` has no schema: it may hold anything. A new optional
    // field has nothing to be compared with.
    if (name in op || or.has(name)) compareSchema(ctx, op[name] ?? {}, np[name] ?? {}, direction, at);
  }
  if (direction === "request" && n.additionalProperties === false && o.additionalProperties !== false) {
    ctx.out.add("breaking", "request-additional-properties-closed", where || "(body)", "request no longer accepts properties beyond the listed ones");
  }
  const [oa, na] = [o.additionalProperties, n.additionalProperties];
  if (oa && na && typeof oa === "object" && typeof na === "object") compareSchema(ctx, oa, na, direction, join(where, "*"));
}

function compareConditional(ctx: SchemaContext, o: Record<string, any>, n: Record<string, any>, direction: Direction, where: string): void {
  if (o.if === undefined && n.if === undefined) return;
  if (JSON.stringify(o.if) !== JSON.stringify(n.if)) {
    ctx.out.add("warning", "conditional-changed", where || "(schema)", "if/then/else condition changed; review by hand");
  }
  for (const key of ["then", "else"] as const) {
    if (o[key] !== undefined && n[key] !== undefined) compareSchema(ctx, o[key], n[key], direction, where);
    else if (o[key] !== undefined || n[key] !== undefined) {
      ctx.out.add("warning", "conditional-changed", where || "(schema)", `if/${key} branch ${o[key] === undefined ? "added" : "removed"}; review by hand`);
    }
  }
}

export function compareSchema(ctx: SchemaContext, oldSchema: unknown, newSchema: unknown, direction: Direction, where: string): void {
  const [ro, rn] = [resolve(ctx.oldDoc, oldSchema), resolve(ctx.newDoc, newSchema)];
  if (ro.ref !== undefined && rn.ref !== undefined) {
    const key = `${direction} ${ro.ref} ${rn.ref}`;
    if (ctx.seen.has(key)) return;
    ctx.seen.add(key);
  }
  const o = flattenAllOf(ctx.oldDoc, asObject(ro.node));
  const n = flattenAllOf(ctx.newDoc, asObject(rn.node));
  const [ob, nb] = [branches(o), branches(n)];
  if (ob !== undefined || nb !== undefined) {
    // A plain schema facing a oneOf is a oneOf of one (e.g. a field that became nullable).
    compareBranches(ctx, ob ?? [oldSchema], nb ?? [newSchema], direction, where);
    return;
  }
  const place: Place = { out: ctx.out, direction, where: where || "(body)" };
  if (!compareType(place, o, n)) return;
  compareEnum(place, o, n);
  compareLimits(place, o, n);
  compareObject(ctx, o, n, direction, where);
  if (o.items !== undefined && n.items !== undefined) compareSchema(ctx, o.items, n.items, direction, `${where}[]`);
  compareConditional(ctx, o, n, direction, where);
}
