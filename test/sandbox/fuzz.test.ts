// Thousands of requests, valid and invalid: bodies and query parameters generated from the
// spec's own schemas for several operations (mostly valid, sometimes not), random junk on
// random paths, wrong content types and huge bodies. Whatever arrives, the sandbox never answers
// 500 or stops, every answer is an envelope with a registry code and its HTTP status, and every
// success answer fits the operation's schema.
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { BIG_MERCHANT, DEMO, DEMO_USER, bodyText, startSandbox, successSchemaErrors, type TestSandbox } from "../support/sandbox.js";

type Json = Record<string, any>;
const spec = JSON.parse(readFileSync(join(packageRoot(), "generated", "signed.openapi.json"), "utf8")) as Json;

function deref(node: any): any {
  while (node && typeof node.$ref === "string") {
    node = node.$ref.slice(2).split("/").reduce((at: any, key: string) => at[key.replace(/~1/g, "/").replace(/~0/g, "~")], spec);
  }
  return node;
}

const operations = new Map<string, { method: string; path: string; operation: Json }>();
for (const [path, item] of Object.entries(spec.paths as Json)) {
  for (const [method, operation] of Object.entries(item as Json)) operations.set((operation as Json).operationId, { method: method.toUpperCase(), path, operation });
}

/** Which operation a method and path (relative to /open-api/v1 or /open-api) reach, if any. */
function operationAt(method: string, path: string): string | undefined {
  const relative = path.replace(/^\/open-api(\/v1)?/i, "").split("?")[0]!.replace(/\/$/, "") || "/";
  for (const [operationId, entry] of operations) {
    const pattern = new RegExp(`^${entry.path.replace(/\{[^}]+\}/g, "[^/]+")}$`, "i");
    if (entry.method === method && pattern.test(relative)) return operationId;
  }
  return undefined;
}

// ---- values from schemas: mostly valid, sometimes not ----

const KNOWN_IDS = [10001n, 10002n, 10003n, 10004n, 10005n, BIG_MERCHANT, 20001n, 20002n, 20003n, 60001n, 60002n, 60004n, 61001n, DEMO_USER, 2n ** 53n + 1n];
const idArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...KNOWN_IDS) },
  { weight: 2, arbitrary: fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }) },
  { weight: 1, arbitrary: fc.constantFrom(0n, -1n, 2n ** 63n, 2n ** 64n + 7n) },
);
const junkArb: fc.Arbitrary<unknown> = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.string(), fc.constant(null), fc.double(), fc.boolean());

function arbitraryFor(schemaNode: any, depth = 0): fc.Arbitrary<unknown> {
  const schema = deref(schemaNode) ?? {};
  const valid = validArbitrary(schema, depth);
  return fc.oneof({ weight: 9, arbitrary: valid }, { weight: 1, arbitrary: junkArb });
}

function validArbitrary(schema: any, depth: number): fc.Arbitrary<unknown> {
  if (schema.oneOf) return fc.oneof(...schema.oneOf.map((option: any) => arbitraryFor(option, depth + 1)));
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "integer" && schema.format === "int64") return idArb;
  if (type === "integer") {
    const min = schema.minimum ?? -2147483648;
    const max = schema.maximum ?? 2147483647;
    return fc.oneof({ weight: 8, arbitrary: fc.integer({ min, max }) }, { weight: 1, arbitrary: fc.constantFrom(min - 1, max + 1, 1.5) });
  }
  if (type === "number") return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
  if (type === "boolean") return fc.boolean();
  if (type === "string") {
    if (schema.format === "uri" && schema.pattern?.includes("[Hh][Tt][Tt][Pp][Ss]")) return fc.webUrl({ validSchemes: ["https"] });
    if (schema.format === "uri") return fc.webUrl();
    const maxLength = schema.maxLength ?? 40;
    if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).map((text) => text.slice(0, maxLength + 2));
    return fc.string({ minLength: schema.minLength ?? 0, maxLength: maxLength + 2, unit: "binary" });
  }
  if (type === "array") {
    if (depth > 3) return fc.constant([]);
    return fc.array(arbitraryFor(schema.items ?? {}, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
  }
  if (type === "object" || schema.properties) {
    const properties = Object.entries((schema.properties ?? {}) as Json);
    const required = new Set<string>(schema.required ?? []);
    const record: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, property] of properties) record[name] = arbitraryFor(property, depth + 1);
    const requiredKeys = properties.map(([name]) => name).filter((name) => required.has(name));
    return fc
      .tuple(fc.record(record, { requiredKeys }), fc.boolean(), fc.dictionary(fc.string({ maxLength: 8 }), junkArb, { maxKeys: 2 }), fc.nat(20))
      .map(([value, addExtra, extra, drop]) => {
        const copy: Json = { ...(value as Json) };
        if (addExtra && drop === 0) Object.assign(copy, extra);
        if (drop === 1 && requiredKeys.length > 0) delete copy[requiredKeys[0]!];
        return copy;
      });
  }
  return junkArb;
}

function bodyArbitrary(operationId: string): fc.Arbitrary<unknown> {
  const schema = operations.get(operationId)!.operation.requestBody.content["application/json"].schema;
  return validArbitrary(deref(schema), 0);
}

function queryArbitrary(operationId: string): fc.Arbitrary<string> {
  const parameters = ((operations.get(operationId)!.operation.parameters ?? []) as any[]).map(deref).filter((p) => p.in === "query");
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const parameter of parameters) record[parameter.name] = arbitraryFor(parameter.schema);
  const requiredKeys = parameters.filter((p) => p.required).map((p) => p.name as string);
  return fc.tuple(fc.record(record, { requiredKeys }), fc.option(fc.string({ minLength: 1, maxLength: 6 }), { nil: undefined })).map(([values, extra]) => {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(values as Json)) query.append(name, typeof value === "object" && value !== null ? JSON.stringify(value) : String(value));
    if (extra) query.append(extra, "1");
    return query.toString();
  });
}

// ---- requests ----

interface FuzzRequest {
  method: string;
  path: string;
  body?: string | Uint8Array;
  contentType?: string;
  signed: boolean;
  operationId?: string;
}

const ORDER_PLACEHOLDER = "{order}";

const specRequests: fc.Arbitrary<FuzzRequest>[] = [
  bodyArbitrary("createCashierSession").map((body) => ({ method: "POST", path: "/open-api/v1/payment/cashier/create", body: bodyText(body), signed: true })),
  bodyArbitrary("createOrder").map((body) => ({ method: "POST", path: "/open-api/v1/orders", body: bodyText(body), signed: true })),
  bodyArbitrary("syncCustomer").map((body) => ({ method: "POST", path: "/open-api/customers/sync", body: bodyText(body), signed: true })),
  bodyArbitrary("purchaseMemberCard").map((body) => ({ method: "POST", path: "/open-api/v1/member-cards/purchase", body: bodyText(body), signed: true })),
  bodyArbitrary("payOrder").map((body) => ({ method: "POST", path: `/open-api/v1/orders/${ORDER_PLACEHOLDER}/pay`, body: bodyText(body), signed: true })),
  bodyArbitrary("writeOffOrder").map((body) => ({ method: "POST", path: `/open-api/v1/orders/${ORDER_PLACEHOLDER}/write-off?merchantId=10001`, body: bodyText(body), signed: true })),
  queryArbitrary("listMerchants").map((query) => ({ method: "GET", path: `/open-api/v1/merchants?${query}`, signed: true })),
  queryArbitrary("listStores").map((query) => ({ method: "GET", path: `/open-api/v1/stores?${query}`, signed: true })),
  queryArbitrary("listNearbyStores").map((query) => ({ method: "GET", path: `/open-api/v1/stores/nearby?${query}`, signed: true })),
  queryArbitrary("listCardTemplates").map((query) => ({ method: "GET", path: `/open-api/card-templates?${query}`, signed: true })),
  queryArbitrary("getOrder").map((query) => ({ method: "GET", path: `/open-api/v1/orders/${ORDER_PLACEHOLDER}?${query}`, signed: true })),
  queryArbitrary("queryPayment").map((query) => ({ method: "GET", path: `/open-api/v1/payment/query?${query}`, signed: true })),
  fc.tuple(idArb, fc.constantFrom("/merchants/", "/stores/", "/orders/")).map(([id, prefix]) => ({ method: "GET", path: `/open-api/v1${prefix}${id}${prefix === "/orders/" ? "?merchantId=10001" : ""}`, signed: true })),
];

const pathSegment = fc.oneof(
  fc.constantFrom("orders", "merchants", "stores", "nearby", "payment", "query", "cashier", "create", "customers", "sync", "card-templates", "member-cards", "purchase", "pay", "cancel", "refund", "write-off", "status-history", "business-hours", "sandbox", "v1", "..", "%2e%2e", "%ZZ", "9007199254740993", "0", "-1"),
  fc.string({ minLength: 1, maxLength: 8 }).map(encodeURIComponent),
);
const junkRequests: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"),
  path: fc.tuple(fc.constantFrom("/open-api/v1", "/open-api", "/OPEN-API/V1", "/v1", "/sandbox"), fc.array(pathSegment, { maxLength: 4 }), fc.option(fc.string({ maxLength: 20 }), { nil: undefined })).map(
    ([base, segments, query]) => `${base}/${segments.join("/")}${query === undefined ? "" : `?${encodeURIComponent(query)}=${encodeURIComponent(query)}`}`,
  ),
  body: fc.option(fc.oneof(fc.string({ maxLength: 200 }), fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)), fc.uint8Array({ maxLength: 200 })), { nil: undefined }),
  contentType: fc.option(fc.constantFrom("application/json", "text/plain", "application/json; charset=latin1", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=UTF-8"), { nil: undefined }),
  signed: fc.boolean(),
});

const requestArb: fc.Arbitrary<FuzzRequest> = fc.oneof({ weight: 3, arbitrary: fc.oneof(...specRequests) }, { weight: 1, arbitrary: junkRequests });

let sb: TestSandbox;
let orderIds: bigint[] = [];
let sent = 0;

beforeAll(async () => {
  sb = await startSandbox();
  orderIds = [await sb.createOrder(), await sb.createOrder({ orderType: 3 }), 424242n];
});
afterAll(() => sb.close());

interface FuzzAnswer {
  status: number;
  text: string;
  contentType: string | null;
  /** The path as sent, after URL normalisation ("/v1/.." is "/"). */
  sentPath: string;
}

async function send(request: FuzzRequest, pick: number): Promise<FuzzAnswer> {
  const path = request.path.replace(ORDER_PLACEHOLDER, String(orderIds[pick % orderIds.length]));
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : request.body;
  const headers: Record<string, string> = {};
  if (request.signed && !path.startsWith("/v1") && !path.startsWith("/sandbox")) {
    Object.assign(headers, signRequestHeaders({ ...DEMO, body: body ?? "", now: () => sb.sandbox.clock.now() }));
  }
  if (path.startsWith("/v1")) headers.Authorization = "Bearer demo-api-key";
  const contentType = request.contentType ?? (body === undefined ? undefined : "application/json");
  if (contentType && body !== undefined) headers["Content-Type"] = contentType;
  const url = new URL(`${sb.url}${path}`);
  const response = await fetch(url, { method: request.method, headers, body, redirect: "manual" });
  sent += 1;
  return { status: response.status, text: await response.text(), contentType: response.headers.get("content-type"), sentPath: url.pathname + url.search };
}

const SIGNED_CODES = new Map<number, number>(Object.values(SignedErrors).map((entry) => [entry.code, entry.http]));
const KEYED_CODES = new Map<number, number>(Object.values(KeyedErrors).map((entry) => [entry.code, entry.http]));

function checkAnswer(request: FuzzRequest, answer: FuzzAnswer): void {
  expect(answer.status, `${request.method} ${request.path}: ${answer.text}`).not.toBe(500);
  if (request.method === "HEAD") return;
  // Dot segments can leave the API's base paths ("/v1/.." is "/", which redirects to the docs).
  if (!/^\/(open-api|v1|sandbox)(\/|$|\?)/i.test(answer.sentPath)) return;
  expect(answer.contentType, answer.text).toMatch(/^application\/json/);
  const json = JSON.parse(answer.text) as Json;
  const keyed = /^\/v1(\/|$|\?)/i.test(answer.sentPath);
  if (keyed) {
    expect(Object.keys(json).sort()).toEqual(["code", "data", "message"]);
    if (json.code === 200) return void expect(answer.status).toBe(200);
    expect(KEYED_CODES.get(json.code), answer.text).toBe(answer.status);
    expect(json.data).toBeNull();
    return;
  }
  expect(Object.keys(json).sort()).toEqual(["code", "data", "msg"]);
  expect(typeof json.msg === "string" && json.msg.length > 0).toBe(true);
  if (json.code === 0) {
    expect(answer.status).toBe(200);
    const operationId = /^\/sandbox/i.test(answer.sentPath) ? undefined : operationAt(request.method, answer.sentPath);
    if (operationId) expect(successSchemaErrors("signed", operationId, JSON.parse(answer.text)), answer.text).toEqual([]);
    return;
  }
  expect(SIGNED_CODES.get(json.code), answer.text).toBe(answer.status);
  expect(json.data).toBeNull();
}

describe("fuzzing the sandbox", () => {
  it("answers every generated request with a valid envelope and never 500", async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, fc.nat(), async (request, pick) => {
        checkAnswer(request, await send(request, pick));
      }),
      { numRuns: 2500, seed: 20261122 },
    );
  }, 120_000);

  it("keeps going with random seeds too", async () => {
    await fc.assert(
      fc.asyncProperty(requestArb, fc.nat(), async (request, pick) => {
        checkAnswer(request, await send(request, pick));
      }),
      { numRuns: 800 },
    );
  }, 120_000);

  it("survives huge bodies on every interface", async () => {
    const huge = `{"openUserId":"${"x".repeat(1024 * 1024 + 10)}"}`;
    for (const path of ["/open-api/v1/customers/sync", "/open-api/orders", "/sandbox/clock/advance", "/v1/merchants"]) {
      for (const signed of [true, false]) {
        checkAnswer({ method: "POST", path, signed }, await send({ method: "POST", path, body: huge, signed }, 0));
      }
    }
  });

  it("was not disturbed: no internal errors were logged and the sandbox still answers", async () => {
    expect(sent).toBeGreaterThan(3000);
    expect(sb.logs.errors).toEqual([]);
    expect((await sb.signed({ path: "/merchants" })).json.code).toBe(0);
  });
});
