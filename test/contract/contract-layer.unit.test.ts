// The contract layer on its own: the route table, path templates, the envelope dialects, the
// array limits in "list them all" mode, the spec's parameters and webhooks, and the judge.
import { describe, expect, it } from "vitest";
import { KEYED_SUCCESS_CODE, SIGNED_SUCCESS_CODE, SignedErrors } from "../../generated/error-codes.js";
import {
  compilePathTemplate,
  ENVELOPE_DIALECTS,
  failureEnvelope,
  findOversizeArrays,
  judgeAnswer,
  requestBodyArrayLimits,
  RouteTable,
  schemasFor,
  successEnvelope,
  type OperationLocation,
} from "../../src/contract/index.js";

const op = (operationId: string, method: string, path: string): OperationLocation => ({ operationId, method, path, pointer: "", operation: {} });

describe("RouteTable", () => {
  const table = new RouteTable([op("getStore", "GET", "/stores/{storeId}"), op("nearby", "GET", "/stores/nearby"), op("payTrade", "POST", "/trades/{tradeNo}/pay")]);

  it.each<[string, { method: string; path: string }, unknown]>([
    ["a literal path wins over a template", { method: "GET", path: "/stores/nearby" }, { operationId: "nearby", pathParams: {} }],
    ["a template gives its decoded parameters", { method: "GET", path: "/stores/a%20b" }, { operationId: "getStore", pathParams: { storeId: "a b" } }],
    ["broken percent-encoding is named, not thrown", { method: "GET", path: "/stores/%ff" }, { operationId: "getStore", undecodable: ["storeId"] }],
    ["a known path with another method", { method: "DELETE", path: "/stores/1" }, "method"],
    ["an unknown path", { method: "GET", path: "/stores/1/extra" }, undefined],
    ["no normalisation: a trailing slash is another path", { method: "GET", path: "/stores/1/" }, undefined],
  ])("%s", (_name, { method, path }, want) => {
    const found = table.match(method, path);
    if (typeof want === "object" && want !== null) expect(found).toMatchObject(want);
    else expect(found).toBe(want);
  });

  it("lists the methods of a path for an Allow header", () => {
    expect(table.allowedMethods("/trades/T1/pay")).toEqual(["POST"]);
    expect(table.allowedMethods("/nowhere")).toEqual([]);
  });

  it("compiles every operation of the signed spec, and finds each by its own example path", () => {
    const schemas = schemasFor("signed");
    const routes = new RouteTable(schemas.operations.values());
    for (const operation of schemas.operations.values()) {
      const path = operation.path.replace(/\{[^}]+\}/g, "123");
      expect(routes.match(operation.method, path), operation.operationId).toMatchObject({ operationId: operation.operationId });
    }
  });
});

describe("compilePathTemplate", () => {
  it("matches as Express does when asked: any case, one trailing slash, under a prefix", () => {
    const template = compilePathTemplate("/orders/{orderId}", { caseInsensitive: true, trailingSlash: true, prefix: "/open-api/v1" });
    expect(template.names).toEqual(["orderId"]);
    expect(template.regexp.exec("/OPEN-API/v1/Orders/42/")?.[1]).toBe("42");
    expect(template.regexp.test("/open-api/v1/orders/42//")).toBe(false);
  });

  it("escapes the template's literal text", () => {
    expect(compilePathTemplate("/a.b/{x}").regexp.test("/aXb/1")).toBe(false);
  });
});

describe("the envelope dialects", () => {
  it("take their success codes from the generated registry", () => {
    expect(ENVELOPE_DIALECTS.signed.successCode).toBe(SIGNED_SUCCESS_CODE);
    expect(ENVELOPE_DIALECTS.keyed.successCode).toBe(KEYED_SUCCESS_CODE);
    expect(successEnvelope("signed", 1)).toEqual({ code: SIGNED_SUCCESS_CODE, msg: "success", data: 1 });
    expect(successEnvelope("keyed", 1)).toEqual({ code: KEYED_SUCCESS_CODE, message: "success", data: 1 });
    expect(failureEnvelope("keyed", 404, "no")).toEqual({ code: 404, message: "no", data: null });
  });

  it("validate against the specs' envelope schemas", () => {
    const signed = schemasFor("signed");
    expect(signed.validate("/components/schemas/ErrorEnvelope", failureEnvelope("signed", SignedErrors.ORDER_NOT_FOUND.code, "gone"))).toEqual([]);
  });
});

describe("array limits", () => {
  it("lists every array over its limit in document order, or stops at the first", () => {
    const document = { components: {} };
    const operation = { requestBody: { content: { "application/json": { schema: { type: "object", properties: { a: { type: "array", maxItems: 1 }, b: { type: "array", maxItems: 2 } } } } } } };
    const limits = requestBodyArrayLimits(document, operation);
    const body = { a: [1, 2], b: [1, 2, 3] };
    expect(findOversizeArrays(limits, body)).toEqual([
      { field: "body.a", count: 2, maxItems: 1 },
      { field: "body.b", count: 3, maxItems: 2 },
    ]);
    expect(findOversizeArrays(limits, body, { first: true })).toHaveLength(1);
  });

  it("reads createOrder's items limit from the signed spec", () => {
    const schemas = schemasFor("signed");
    const limits = requestBodyArrayLimits(schemas.spec, schemas.operation("createOrder").operation);
    expect(limits?.properties?.get("items")?.maxItems).toBeGreaterThan(0);
  });
});

describe("SpecSchemas", () => {
  const signed = schemasFor("signed");

  it("is loaded once per process", () => {
    expect(schemasFor("signed")).toBe(signed);
  });

  it("finds an operation's parameters with their schemas, following $refs", () => {
    const parameters = signed.parameters("listStores");
    expect(parameters.map((p) => `${p.in}:${p.name}`)).toContain("query:merchantId");
    for (const parameter of parameters) expect(parameter.schema, parameter.name).toBeTypeOf("object");
  });

  it("finds request body schemas, and none for a GET", () => {
    expect(signed.requestBodySchemaPointer("createOrder")).toMatch(/^\/components\/schemas\//);
    expect(signed.requestBodyRequired("createOrder")).toBe(true);
    expect(signed.requestBodySchemaPointer("listStores")).toBeUndefined();
  });

  it("finds the webhooks by their payload's type constant", () => {
    expect(signed.webhooks().map((w) => w.eventType).sort()).toEqual(["member_card.application.approved", "member_card.application.rejected", "payment.succeeded"]);
    expect(signed.webhook("payment.succeeded")?.name).toBe("paymentSucceeded");
  });
});

describe("judgeAnswer", () => {
  const signed = schemasFor("signed");
  const answer = (status: number, body: unknown, contentType = "application/json") => ({ response: { status, headers: { "content-type": contentType }, bodyText: JSON.stringify(body), json: body } });

  it("passes a registry error with its mapped status", () => {
    const entry = SignedErrors.ORDER_NOT_FOUND;
    expect(judgeAnswer(signed, "signed", "getOrder", answer(entry.http, { code: entry.code, msg: "no such order", data: null }), true).problems).toEqual([]);
  });

  it("names an unregistered code, a wrong status and a wrong content type", () => {
    const verdict = judgeAnswer(signed, "signed", "getOrder", answer(418, { code: 999999, msg: "?", data: null }, "text/plain"), true);
    expect(verdict.problems.join("\n")).toMatch(/content type is "text\/plain"/);
    expect(verdict.problems.join("\n")).toMatch(/999999 is not in the error registry/);
  });

  it("says when there was no answer", () => {
    expect(judgeAnswer(signed, "signed", "getOrder", { error: "ECONNREFUSED" }, true).problems).toEqual(["no answer: ECONNREFUSED"]);
  });
});
