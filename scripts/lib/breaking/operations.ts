// Compares two bundled OpenAPI documents operation by operation: operations and callbacks
// (webhooks), parameters, request bodies and responses.
import { deref } from "./refs.js";
import { compareSchema, schemaContext, type SchemaContext } from "./schema.js";
import { type Direction, type Doc, type Finding, Findings, flip } from "./types.js";

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];

interface Operation {
  /** How findings name it: "POST /orders/{orderId}/pay" or "callback paymentSucceeded (POST)". */
  label: string;
  item: Record<string, any>;
  op: Record<string, any>;
  /** The path template, e.g. "/orders/{orderId}"; "" for a callback. */
  path: string;
  /** "request" for an API operation; callbacks are requests the platform sends. */
  direction: Direction;
}

/** Path templates match whatever their parameters are called: /orders/{id} = /orders/{orderId}. */
function operations(doc: Doc): Map<string, Operation> {
  const found = new Map<string, Operation>();
  for (const [path, rawItem] of Object.entries<any>(doc.paths ?? {})) {
    const item = deref(doc, rawItem);
    for (const method of METHODS) {
      if (!item?.[method]) continue;
      const key = `${method} ${path.replace(/\{[^}]*\}/g, "{}")}`;
      found.set(key, { label: `${method.toUpperCase()} ${path}`, item, op: item[method], path, direction: "request" });
    }
  }
  for (const [name, rawItem] of Object.entries<any>(doc.webhooks ?? {})) {
    const item = deref(doc, rawItem);
    for (const method of METHODS) {
      if (!item?.[method]) continue;
      found.set(`webhook ${name} ${method}`, { label: `callback ${name} (${method.toUpperCase()})`, item, op: item[method], path: "", direction: "response" });
    }
  }
  return found;
}

/**
 * Parameters by location and name. Path parameters are keyed by their position in the
 * template, since renaming one changes no URL; header names are case-insensitive.
 */
function parameters(doc: Doc, { item, op, path }: Operation): Map<string, Record<string, any>> {
  const params = new Map<string, Record<string, any>>();
  const positions = [...path.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]);
  // Operation-level parameters override path-level ones with the same name and location.
  for (const raw of [...(item.parameters ?? []), ...(op.parameters ?? [])]) {
    const p = deref(doc, raw) as Record<string, any>;
    const name = String(p.name);
    const key = p.in === "path" ? `path #${positions.indexOf(name) + 1}` : `${p.in} ${p.in === "header" ? name.toLowerCase() : name}`;
    params.set(key, p);
  }
  return params;
}

function compareParameters(ctx: SchemaContext, o: Operation, n: Operation): void {
  const [before, after] = [parameters(ctx.oldDoc, o), parameters(ctx.newDoc, n)];
  // Parameters travel with the request: the client writes them, except on a callback.
  const direction = o.direction;
  for (const [key, np] of after) {
    const op = before.get(key);
    const where = `${n.label} parameter ${np.in} ${np.name}`;
    if (direction === "request" && np.required && !op?.required) {
      ctx.out.add("breaking", "parameter-required", where, op ? "parameter became required" : "new required parameter");
    }
    if (op) compareSchema(ctx, op.schema, np.schema, direction, `${where}:`);
  }
  for (const [key, op] of before) {
    const where = `${o.label} parameter ${op.in} ${op.name}`;
    const np = after.get(key);
    if (direction === "request" && !np) ctx.out.add("warning", "parameter-removed", where, "parameter removed; the server will ignore or refuse it");
    if (direction === "response" && op.required && !np?.required) {
      ctx.out.add("breaking", "callback-header-removed", where, "callback parameter no longer always sent");
    }
  }
}

function content(doc: Doc, holder: any): Record<string, any> {
  return (deref(doc, holder)?.content ?? {}) as Record<string, any>;
}

function compareContent(ctx: SchemaContext, o: any, n: any, direction: Direction, where: string): void {
  const [before, after] = [content(ctx.oldDoc, o), content(ctx.newDoc, n)];
  for (const [type, media] of Object.entries(before)) {
    if (!(type in after)) ctx.out.add("breaking", `${direction}-media-type-removed`, where, `${type} is no longer ${direction === "request" ? "accepted" : "sent"}`);
    else compareSchema(ctx, media.schema, after[type].schema, direction, `${where} (${type}):`);
  }
}

function compareRequestBody(ctx: SchemaContext, o: Operation, n: Operation): void {
  const [before, after] = [deref(ctx.oldDoc, o.op.requestBody), deref(ctx.newDoc, n.op.requestBody)];
  const where = `${n.label} request body`;
  if (o.direction === "request") {
    if (after?.required && !before?.required) ctx.out.add("breaking", "request-body-required", where, before ? "request body became required" : "new required request body");
    if (before && !after) ctx.out.add("warning", "request-body-removed", where, "request body removed; the server will ignore or refuse it");
  } else if (before && !after) {
    ctx.out.add("breaking", "callback-payload-removed", where, "callback payload removed");
  }
  if (before && after) compareContent(ctx, before, after, o.direction, where);
}

function compareResponses(ctx: SchemaContext, o: Operation, n: Operation): void {
  // Responses flow the other way: server to client, or an app's receiver back to the platform.
  const direction = flip(o.direction);
  const before: Record<string, any> = o.op.responses ?? {};
  const after: Record<string, any> = n.op.responses ?? {};
  for (const [status, response] of Object.entries(before)) {
    const where = `${n.label} response ${status}`;
    if (!(status in after)) {
      if (direction === "response" && /^2/.test(status)) ctx.out.add("breaking", "response-status-removed", where, `success response ${status} removed`);
      continue;
    }
    compareContent(ctx, response, after[status], direction, where);
  }
}

export function compareDocuments(oldDoc: Doc, newDoc: Doc): Finding[] {
  const out = new Findings();
  const ctx = schemaContext(oldDoc, newDoc, out);
  const [before, after] = [operations(oldDoc), operations(newDoc)];
  for (const [key, o] of before) {
    const n = after.get(key);
    const kind = o.direction === "request" ? "operation" : "callback";
    if (!n) {
      out.add("breaking", `${kind}-removed`, o.label, `${kind} removed${o.op.operationId ? ` (${o.op.operationId})` : ""}`);
      continue;
    }
    if (o.op.operationId !== n.op.operationId) {
      // Generated clients name their functions and types after it.
      out.add("breaking", "operation-id-changed", n.label, `operationId ${o.op.operationId} → ${n.op.operationId}`);
    }
    compareParameters(ctx, o, n);
    compareRequestBody(ctx, o, n);
    compareResponses(ctx, o, n);
  }
  for (const [key, n] of after) {
    if (!before.has(key)) out.add("info", `${n.direction === "request" ? "operation" : "callback"}-added`, n.label, `added${n.op.operationId ? ` (${n.op.operationId})` : ""}`);
  }
  return out.list;
}
