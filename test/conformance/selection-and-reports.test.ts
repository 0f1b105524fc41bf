// Check selection, option validation and the report formats, without a server.
import { describe, expect, it } from "vitest";
import { ALL_CHECKS, jsonReport, junitReport, OptionsError, selectChecks, textReport, type ConformanceReport } from "../../src/conformance/index.js";
import { resolveOptions } from "../../src/conformance/options.js";

const base = { include: [] as string[], exclude: [] as string[], variants: ["signed", "keyed"] as Array<"signed" | "keyed"> };

describe("check selection", () => {
  it("has unique, stable names, each with a purpose and a rule", () => {
    const names = ALL_CHECKS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    for (const check of ALL_CHECKS) {
      expect(check.name).toMatch(/^[a-z0-9-]+\.[A-Za-z0-9^.-]+$/);
      expect(check.purpose.length).toBeGreaterThan(10);
      expect(check.rule.length).toBeGreaterThan(5);
    }
  });

  it("covers every signed operation with a responses check", () => {
    expect(ALL_CHECKS.filter((c) => c.name.startsWith("responses.")).length).toBe(18);
  });

  it.each([
    ["a group prefix", { include: ["signature"] }, (n: string) => n.startsWith("signature.")],
    ["a tag", { include: ["idempotency"] }, (n: string) => n.startsWith("idempotency.")],
    ["an exact name", { include: ["int64.largest-id"] }, (n: string) => n === "int64.largest-id"],
    ["an exclusion", { exclude: ["signature"] }, (n: string) => !n.startsWith("signature.")],
    ["the keyed variant only", { variants: ["keyed"] as Array<"signed" | "keyed"> }, (n: string) => n.startsWith("keyed.")],
  ])("selects by %s", (_label, patch, expected) => {
    const selected = selectChecks({ ...base, ...patch }).map((c) => c.name);
    expect(selected.length).toBeGreaterThan(0);
    expect(selected).toEqual(ALL_CHECKS.map((c) => c.name).filter(expected));
  });
});

describe("options", () => {
  it.each([
    ["no base URL", { baseUrl: "", appKey: "k", appSecret: "s" }, /--base-url/],
    ["a base URL without scheme", { baseUrl: "localhost:4010", appKey: "k", appSecret: "s" }, /--base-url/],
    ["no app key", { baseUrl: "http://127.0.0.1:1", appKey: "", appSecret: "s" }, /--app-key/],
    ["no secret", { baseUrl: "http://127.0.0.1:1", appKey: "k", appSecret: "" }, /--app-secret/],
    ["a merchant id that is not a number", { baseUrl: "http://127.0.0.1:1", appKey: "k", appSecret: "s", merchantIds: ["abc"] }, /merchant id "abc"/],
    ["zero concurrency", { baseUrl: "http://127.0.0.1:1", appKey: "k", appSecret: "s", concurrency: 0 }, /--concurrency/],
  ])("refuses %s with a clear message", (_label, options, message) => {
    expect(() => resolveOptions(options)).toThrow(OptionsError);
    expect(() => resolveOptions(options)).toThrow(message);
  });

  it("accepts a base URL that already ends in the base path", () => {
    expect(resolveOptions({ baseUrl: "http://127.0.0.1:4010/open-api/v1/", appKey: "k", appSecret: "s" }).baseUrl).toBe("http://127.0.0.1:4010");
  });
});

describe("reports", () => {
  const report: ConformanceReport = {
    target: { baseUrl: "http://127.0.0.1:1", basePath: "/open-api/v1", controlApi: false, callbackReceiver: undefined },
    startedAt: "2026-11-22T00:00:00.000Z",
    durationMs: 1234,
    counts: { passed: 1, failed: 1, skipped: 1 },
    results: [
      { name: "a.pass", tags: ["a"], purpose: "passes", status: "passed", durationMs: 3 },
      {
        name: "b.fail",
        tags: ["b"],
        purpose: "fails <loudly> & clearly",
        status: "failed",
        durationMs: 5,
        reason: "accepted",
        failure: {
          message: "the server accepted a <bad> value",
          expected: "refusal with code 100009",
          rule: "source: Limits",
          exchange: { request: { method: "GET", url: "http://127.0.0.1:1/v1/merchants", headers: { Authorization: "Bearer secret-api-key-1234" } }, response: { status: 200, headers: { "content-type": "application/json" }, bodyText: '{"code":200}' }, durationMs: 1 },
        },
      },
      { name: "c.skip", tags: ["c"], purpose: "skips", status: "skipped", durationMs: 0, reason: "no --api-key" },
    ],
  };

  it("text: a table, each failure with request, answer, expectation and rule, skipped with reasons", () => {
    const text = textReport(report);
    expect(text).toMatch(/b\.fail\s+FAIL/);
    expect(text).toContain("expected: refusal with code 100009");
    expect(text).toContain("rule:     source: Limits");
    expect(text).toContain("request:  GET http://127.0.0.1:1/v1/merchants");
    expect(text).toContain("c.skip: no --api-key");
    expect(text).toContain("1 passed, 1 failed, 1 skipped");
  });

  it("never prints an API key in full", () => {
    for (const output of [textReport(report), jsonReport(report), junitReport(report)]) {
      expect(output).not.toContain("secret-api-key-1234");
      expect(output).toContain("…1234");
    }
  });

  it("junit: one testcase per check, failures and skips marked, XML escaped", () => {
    const xml = junitReport(report);
    expect(xml).toContain('<testsuite name="mop check" tests="3" failures="1" skipped="1"');
    expect(xml).toContain('<failure message="the server accepted a &lt;bad&gt; value">');
    expect(xml).toContain('<skipped message="no --api-key"/>');
  });

  it("json: parses and keeps the counts", () => {
    expect(JSON.parse(jsonReport(report)).counts).toEqual({ passed: 1, failed: 1, skipped: 1 });
  });
});

describe("a failure where success was expected", () => {
  it("names the schema of the operation's 200 response, not the schema of the error received", async () => {
    const { CheckContext } = await import("../../src/conformance/context.js");
    const { ConformanceHttp } = await import("../../src/conformance/http.js");
    const { judgeAnswer, loadBundle, SpecSchemas } = await import("../../src/contract/index.js");
    const { createRateLimiter } = await import("../../src/conformance/rate-limiter.js");
    const schemas = { signed: new SpecSchemas(loadBundle("signed"), "signed"), keyed: new SpecSchemas(loadBundle("keyed"), "keyed") };
    const ctx = new CheckContext(resolveOptions({ baseUrl: "http://127.0.0.1:1", appKey: "k", appSecret: "s" }), new ConformanceHttp({ timeoutMs: 1000, limiter: createRateLimiter(0) }), schemas, undefined, undefined, "run");
    const bodyText = '{"code":100009,"msg":"body.subject must NOT have more than 32 characters","data":null}';
    const exchange = { request: { method: "POST", url: "http://127.0.0.1:1/open-api/v1/payment/cashier/create", headers: {} }, response: { status: 400, headers: { "content-type": "application/json" }, bodyText, json: JSON.parse(bodyText) }, durationMs: 1 };
    const verdict = judgeAnswer(schemas.signed, "signed", "createCashierSession", exchange, false);
    expect(verdict.location).toMatch(/BadRequest/);
    let failure: { detail: { expected: string; message: string } } | undefined;
    try {
      ctx.expectSuccess({ exchange, verdict, operationId: "createCashierSession", variant: "signed" }, "rule");
    } catch (error) {
      failure = error as typeof failure;
    }
    expect(failure!.detail.message).toMatch(/failed with code 100009/);
    expect(failure!.detail.expected).toBe(`a success envelope valid against signed.openapi.json#${schemas.signed.responseSchemaPointer("createCashierSession", "200")}`);
    expect(failure!.detail.expected).toMatch(/~1payment~1cashier~1create\/post\/responses\/200\/content/);
  });
});
