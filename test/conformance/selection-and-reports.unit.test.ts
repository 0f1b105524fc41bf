// Check selection, option validation and the report formats, without a server.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { XMLParser } from "fast-xml-parser";
import { ALL_CHECKS, jsonReport, junitReport, OptionsError, resultLine, selectChecks, textReport, type ConformanceReport } from "../../src/conformance/index.js";
import { unknownPatterns } from "../../src/conformance/runner.js";
import { basisOrigin } from "../../src/conformance/origin.js";
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

  it("selects by origin: --exclude designed leaves what the source demands, --include designed the rest", () => {
    const source = selectChecks({ ...base, exclude: ["designed"] });
    const designed = selectChecks({ ...base, include: ["designed"] });
    expect(source.length + designed.length).toBe(ALL_CHECKS.length);
    expect(source.every((c) => c.origin === "source")).toBe(true);
    expect(designed.every((c) => c.origin === "designed")).toBe(true);
    // The contract's own rules, where the source is silent (issue: a server written from the source fails them).
    expect(designed.map((c) => c.name)).toEqual(expect.arrayContaining(["signature.before-routing", "validation.unknown-query-parameter", "idempotency.out-refund-no", "state.pay-zero-amount", "signature.body-on-bodyless-operation", "callbacks.payment-succeeded", "responses.syncCustomer"]));
    expect(source.map((c) => c.name)).toEqual(expect.arrayContaining(["signature.hex-signature", "validation.subject-length", "state.pay-requires-pending", "int64.above-2^53", "responses.createOrder", "keyed.limit-maximum"]));
  });

  it("refuses an --include / --exclude that matches no check (a typo is not a selection)", () => {
    expect(unknownPatterns({ include: [], exclude: ["designed", "source", "signature", "int64.largest-id", "control"] })).toEqual([]);
    expect(unknownPatterns({ include: ["signatures"], exclude: ["desgined"] })).toEqual(["signatures", "desgined"]);
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
    countsByOrigin: { source: { passed: 1, failed: 0, skipped: 1 }, designed: { passed: 0, failed: 1, skipped: 0 } },
    results: [
      { name: "a.pass", tags: ["a"], origin: "source", purpose: "passes", status: "passed", durationMs: 3 },
      {
        name: "b.fail",
        tags: ["b"],
        origin: "designed",
        purpose: "fails <loudly> & clearly",
        status: "failed",
        durationMs: 5,
        reason: "accepted",
        failure: {
          message: "the server accepted a <bad> value",
          expected: "refusal with code 100009",
          rule: "source: Limits",
          exchange: { request: { method: "GET", url: "http://127.0.0.1:1/v1/merchants", headers: { Authorization: "Bearer secret-api-key-1234" } }, response: { status: 200, headers: { "content-type": "application/json" }, bodyText: '{"code":200}' }, durationMs: 1 },
          related: [{ label: "id made by", exchange: { request: { method: "POST", url: "http://127.0.0.1:1/open-api/v1/orders", headers: {} }, response: { status: 200, headers: { "content-type": "application/json" }, bodyText: '{"code":0,"msg":"success","data":9007199254740993}' }, durationMs: 1 } }],
        },
      },
      { name: "c.skip", tags: ["c"], origin: "source", purpose: "skips", status: "skipped", durationMs: 0, reason: "no --api-key" },
    ],
  };

  it("text: a table, each failure with request, answer, expectation and rule, skipped with reasons", () => {
    const text = textReport(report);
    expect(text).toMatch(/b\.fail\s+designed\s+FAIL/);
    expect(text).toContain("expected: refusal with code 100009");
    expect(text).toContain("rule:     source: Limits");
    expect(text).toContain("request:  GET http://127.0.0.1:1/v1/merchants");
    expect(text).toContain("c.skip: no --api-key");
    expect(text).toContain("1 passed, 1 failed, 1 skipped");
  });

  it("text: every check's origin in the table and on its failure, the counts per origin, and the exchange a failure refers to", () => {
    const text = textReport(report);
    expect(text).toMatch(/a\.pass\s+source\s+PASS/);
    expect(text).toMatch(/b\.fail\s+designed\s+FAIL/);
    expect(text).toContain("FAIL b.fail [designed]: fails <loudly> & clearly");
    expect(text).toContain("source:   1 passed, 0 failed, 1 skipped (what the source document demands)");
    expect(text).toContain("designed: 0 passed, 1 failed, 0 skipped (what the contract adds where the source is silent)");
    expect(text).toMatch(/\(id made by\)\n    request:  POST http:\/\/127\.0\.0\.1:1\/open-api\/v1\/orders\n[\s\S]*9007199254740993/);
    expect(resultLine(report.results[0]!)).toBe("PASS a.pass [source] (3 ms)");
  });

  it("never prints an API key in full", () => {
    for (const output of [textReport(report), jsonReport(report), junitReport(report)]) {
      expect(output).not.toContain("secret-api-key-1234");
      expect(output).toContain("…1234");
    }
  });

  it("junit: one testcase per check in a suite per origin, failures and skips marked, XML escaped", () => {
    const xml = junitReport(report);
    expect(xml).toContain('<testsuites name="mop check" tests="3" failures="1" skipped="1"');
    expect(xml).toContain('<testsuite name="mop check: source" tests="2" failures="0" skipped="1"');
    expect(xml).toContain('<testsuite name="mop check: designed" tests="1" failures="1" skipped="0"');
    expect(xml).toContain('<testcase classname="mop.check.designed.b" name="b.fail"');
    expect(xml).toContain("origin: designed");
    expect(new XMLParser({ ignoreAttributes: false }).parse(xml).testsuites.testsuite).toHaveLength(2);
    expect(xml).toContain('<failure message="the server accepted a &lt;bad&gt; value">');
    expect(xml).toContain('<skipped message="no --api-key"/>');
  });

  it("json: parses and keeps the counts, per origin too, and each result's origin", () => {
    const json = JSON.parse(jsonReport(report));
    expect(json.counts).toEqual({ passed: 1, failed: 1, skipped: 1 });
    expect(json.countsByOrigin.designed).toEqual({ passed: 0, failed: 1, skipped: 0 });
    expect(json.results.map((r: { origin: string }) => r.origin)).toEqual(["source", "designed", "source"]);
    expect(json.results[1].failure.related[0].label).toBe("id made by");
  });
});

describe("a failure where success was expected", () => {
  it("names the schema of the operation's 200 response, not the schema of the error received", async () => {
    const { CheckContext } = await import("../../src/conformance/context.js");
    const { ConformanceHttp } = await import("../../src/conformance/http.js");
    const { judgeAnswer, loadBundle, SpecSchemas } = await import("../../src/contract/index.js");
    const { createRequestPacer } = await import("../../src/conformance/pacer.js");
    const schemas = { signed: new SpecSchemas(loadBundle("signed"), "signed"), keyed: new SpecSchemas(loadBundle("keyed"), "keyed") };
    const ctx = new CheckContext(resolveOptions({ baseUrl: "http://127.0.0.1:1", appKey: "k", appSecret: "s" }), new ConformanceHttp({ timeoutMs: 1000, pacer: createRequestPacer(0) }), schemas, undefined, undefined, "run");
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

describe("the origin of each check's rule", () => {
  const normalise = (text: string) => text.replace(/[|`*]/g, " ").replace(/\s+/g, " ").toLowerCase();
  const sourceDocument = normalise(readFileSync(new URL("../../docs/source/merchant-open-platform-interface.md", import.meta.url), "utf8"));
  const decisions = normalise(readFileSync(new URL("../../docs/decisions.md", import.meta.url), "utf8"));

  it("quotes the source document for every source rule, and names a decision of docs/decisions.md for every designed one", () => {
    for (const check of ALL_CHECKS) {
      for (const basis of check.basis) {
        if ("source" in basis) expect(sourceDocument.includes(normalise(basis.source)), `${check.name} quotes the source: "${basis.source}"`).toBe(true);
        if ("decision" in basis) expect(decisions.includes(normalise(basis.decision)), `${check.name} names a decision: "${basis.decision}"`).toBe(true);
      }
    }
  });

  it("reads a field's origin from the spec's x-designed-rules, an operation's from x-source, a code's from the registry", () => {
    expect(basisOrigin({ field: { operationId: "createCashierSession", in: "body", name: "subject", keyword: "maxLength" } })).toBe("source");
    expect(basisOrigin({ field: { operationId: "createCashierSession", in: "body", name: "subject", keyword: "minLength" } })).toBe("designed");
    expect(basisOrigin({ field: { operationId: "listStores", in: "query", name: "pageSize", keyword: "maximum" } })).toBe("source");
    expect(basisOrigin({ field: { operationId: "listCardTemplates", in: "query", name: "pageSize", keyword: "maximum" } })).toBe("designed");
    expect(basisOrigin({ field: { operationId: "createOrder", in: "body", name: "items[].quantity", keyword: "minimum" } })).toBe("source");
    expect(basisOrigin({ field: { operationId: "createOrder", in: "body", name: "items[].quantity", keyword: "maximum" } })).toBe("designed");
    expect(basisOrigin({ operation: "getOrder" })).toBe("source");
    expect(basisOrigin({ operation: "payOrder" })).toBe("designed");
    expect(basisOrigin({ error: "MERCHANT_DATA_FORBIDDEN" })).toBe("source");
    expect(basisOrigin({ error: "ORDER_ZERO_AMOUNT" })).toBe("designed");
  });

  it("refuses a basis the spec does not have (a renamed field cannot keep a stale origin)", () => {
    expect(() => basisOrigin({ field: { operationId: "createCashierSession", in: "body", name: "subjectLine", keyword: "maxLength" } })).toThrow(/no property subjectLine/);
    expect(() => basisOrigin({ field: { operationId: "createCashierSession", in: "body", name: "subject", keyword: "maximum" } })).toThrow(/has no maximum/);
    expect(() => basisOrigin({ operation: "deleteEverything" })).toThrow(/no operation deleteEverything/);
  });

  it("tags every check with exactly one origin, shown by --list", () => {
    for (const check of ALL_CHECKS) expect(["source", "designed"]).toContain(check.origin);
  });
});

describe("the test hooks contract in docs/conformance.md", () => {
  it("lists exactly the checks that need a control API", () => {
    const docs = readFileSync(new URL("../../docs/conformance.md", import.meta.url), "utf8");
    const section = docs.slice(docs.indexOf("### Test hooks"), docs.indexOf("### HTTP statuses"));
    const listed = [...section.matchAll(/^\| `([a-z0-9-]+\.[A-Za-z0-9^.-]+)` \| `payTrade`/gm)].map((m) => m[1]).sort();
    expect(listed).toEqual(ALL_CHECKS.filter((check) => check.needs?.includes("control")).map((check) => check.name).sort());
  });
});
