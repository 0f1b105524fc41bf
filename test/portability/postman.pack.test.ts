// The generated Postman collection run by newman (pinned; Postman's own runner on Postman's
// script sandbox, which we did not write) against a real sandbox with its default large ids, as a
// user runs it: `newman run <collection> -e <environment> --env-var baseUrl=…`. The collection
// signs with its own pre-request script, so a green run is the sandbox accepting every signature
// that script made, over bodies with variables, Chinese text and an emoji.
//
// The failure paths are made to happen: a wrong secret fails the run on the collection's
// "signature was accepted" check, a GET given a body is stopped by the pre-request script, and
// pm.response.json() is shown to round the order id that the scripts read from the text.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, startFlowSandbox, type FlowSandbox } from "./flow.js";

const NEWMAN = join(root, "node_modules", "newman", "bin", "newman.js");
const COLLECTION = join(root, "generated", "postman", "merchant-open-platform.postman_collection.json");
const ENVIRONMENT = join(root, "generated", "postman", "sandbox.postman_environment.json");
const TWO_TO_53 = 2n ** 53n;

interface NewmanExecution {
  item: { name: string };
  request: { method: string; url: { path: string[]; query: Array<{ key: string; value: string }> }; body?: { raw?: string }; header: Array<{ key: string; value: string }> };
  response?: { code: number; stream: { data: number[] } };
  assertions?: Array<{ assertion: string; error?: { message: string } }>;
}
interface NewmanReport {
  run: {
    stats: Record<string, { total: number; failed: number }>;
    executions: NewmanExecution[];
    failures: Array<{ error: { name: string; message: string; test?: string }; source?: { name?: string } }>;
  };
}
interface NewmanRun {
  code: number;
  output: string;
  report: NewmanReport;
}

let sandbox: FlowSandbox;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mop-postman-"));
  sandbox = await startFlowSandbox();
});

afterAll(async () => {
  await sandbox?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

let runs = 0;
/** `newman run` as a user types it, plus a JSON report to read the run back. */
function newman(collection: string, args: string[]): Promise<NewmanRun> {
  const report = join(work, `report-${(runs += 1)}.json`);
  const argv = [NEWMAN, "run", collection, "-e", ENVIRONMENT, "--env-var", `baseUrl=${sandbox.url}`, "--reporters", "cli,json", "--reporter-json-export", report, "--color", "off", ...args];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: root, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, output: stdout + stderr, report: JSON.parse(readFileSync(report, "utf8")) as NewmanReport });
    });
  });
}

const text = (execution: NewmanExecution) => Buffer.from(execution.response!.stream.data).toString("utf8");
const byName = (report: NewmanReport, name: string) => report.run.executions.filter((e) => e.item.name === name);

/** A copy of the generated collection with only the given items of "Pay an order", and extra tests. */
function variant(name: string, keep: string[], tests: Record<string, string[]> = {}, change?: (item: any) => void): string {
  const collection = JSON.parse(readFileSync(COLLECTION, "utf8"));
  const flow = collection.item.find((folder: { name: string }) => folder.name === "Pay an order");
  flow.item = flow.item.filter((item: { name: string }) => keep.includes(item.name));
  for (const item of flow.item) {
    if (tests[item.name]) item.event[0].script.exec.push(...tests[item.name]!);
    change?.(item);
  }
  collection.item = [flow];
  const file = join(work, `${name}.postman_collection.json`);
  writeFileSync(file, JSON.stringify(collection));
  return file;
}

describe("the Postman collection, run by newman against the sandbox", () => {
  it("runs green end to end: the payment flow with an order id above 2^53, then every operation signed or keyed", async () => {
    const { code, output, report } = await newman(COLLECTION, []);
    expect(code, output).toBe(0);
    expect(report.run.failures, output).toEqual([]);
    expect(report.run.stats.assertions!.failed).toBe(0);

    // The flow: the id createOrder answered (above 2^53, so no double holds it) went on, digit for
    // digit, into getOrder's and payOrder's paths; the trade paid through the control API.
    const created = byName(report, "Create order")[0]!;
    const orderId = /"data":(\d+)/.exec(text(created))![1]!;
    expect(BigInt(orderId)).toBeGreaterThan(TWO_TO_53);
    expect(BigInt(Number(orderId))).not.toBe(BigInt(orderId));
    expect(created.request.body!.raw).toContain('"itemName":"拿铁 Latte ☕"');
    expect(created.request.body!.raw, "the body was sent with its variables resolved").not.toContain("{{");
    for (const name of ["Get order detail", "Pay an order", "Get order detail: paid"]) {
      expect(byName(report, name)[0]!.request.url.path, name).toContain(orderId);
    }
    const paid = byName(report, "Get order detail: paid")[0]!;
    expect(text(paid)).toMatch(new RegExp(`"id":${orderId},.*"status":1`));
    expect(byName(report, "Pay the trade (sandbox control API, as the buyer)")[0]!.request.header.find((h) => h.key === "X-Sign")).toBeUndefined();
    const query = byName(report, "Query payment result")[0]!;
    expect(text(query)).toContain('"tradeStatus":"SUCCESS"');

    // Every request of the signed interface carried the four headers; GETs carried no body.
    const signed = report.run.executions.filter((e) => e.request.url.path[0] === "open-api");
    expect(signed.length).toBeGreaterThanOrEqual(20);
    for (const execution of signed) {
      const headers = new Set(execution.request.header.map((h) => h.key));
      expect([...headers], execution.item.name).toEqual(expect.arrayContaining(["X-App-Key", "X-Timestamp", "X-Nonce", "X-Sign"]));
      if (execution.request.method === "GET") expect(execution.request.body?.raw ?? "", execution.item.name).toBe("");
    }
    const keyed = report.run.executions.filter((e) => e.request.url.path[0] === "v1");
    expect(keyed.map((e) => e.request.header.find((h) => h.key === "Authorization")?.value)).toEqual(["Bearer demo-api-key"]);
    expect(output).not.toContain("demo-app-secret");
  }, 90_000);

  it("fails on the collection's own check when the secret is wrong: the sandbox answers 100003", async () => {
    const file = variant("wrong-secret", ["Sync customer"]);
    const { code, report } = await newman(file, ["--env-var", "appSecret=not-the-secret"]);
    expect(code).toBe(1);
    const failed = report.run.failures.map((f) => `${f.error.test ?? f.error.name}: ${f.error.message}`);
    expect(failed).toEqual(expect.arrayContaining([expect.stringMatching(/^the signature was accepted: .*to not include 100003/)]));
  }, 60_000);

  it("stops a GET that carries a body before it is sent", async () => {
    const file = variant("get-with-body", ["Get order detail"], {}, (item) => {
      item.request.body = { mode: "raw", raw: '{"merchantId":10001}' };
    });
    const { code, report } = await newman(file, []);
    expect(code).toBe(1);
    expect(report.run.failures.map((f) => f.error.message).join("\n")).toContain("carries a body: remove it");
    expect(byName(report, "Get order detail").filter((e) => e.response), "nothing was sent").toEqual([]);
    expect(report.run.stats.requests!.total).toBe(0);
  }, 60_000);

  it("shows why the scripts read ids from the text: pm.response.json() rounds the order id", async () => {
    const file = variant("json-rounds", ["Sync customer", "Create order"], {
      "Create order": [
        'pm.test("pm.response.json() rounds the order id", () => {',
        "  const fromText = /\"data\":(\\d+)/.exec(pm.response.text())[1];",
        "  pm.expect(String(pm.response.json().data)).to.not.eql(fromText);",
        "  pm.expect(pm.collectionVariables.get(\"orderId\")).to.eql(fromText);",
        "});",
      ],
    });
    const { code, output, report } = await newman(file, []);
    expect(code, output).toBe(0);
    const assertions = byName(report, "Create order")[0]!.assertions!;
    expect(assertions.find((a) => a.assertion === "pm.response.json() rounds the order id")).toEqual({ assertion: "pm.response.json() rounds the order id", skipped: false });
  }, 60_000);
});
