// examples/minimal-server runs as a user runs it (node, importing the package by name from the
// built files) and passes mop check for the operations it implements: the signature checks,
// the answers of those operations, and the limits and unknown parameters they are probed with.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runConformance, selectChecks } from "../../src/conformance/index.js";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
let child: ChildProcess;
let baseUrl = "";

const INCLUDE = [
  "signature",
  "responses.syncCustomer",
  "responses.listMerchants",
  "responses.getMerchant",
  "responses.listStores",
  "responses.getStore",
  "responses.getStoreBusinessHours",
  "validation.merchant-page-size",
  "validation.store-page-size",
  "validation.unknown-query-parameter",
];

beforeAll(async () => {
  if (!existsSync(join(root, "dist/src/server/index.js"))) execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], { cwd: root });
  child = spawn(process.execPath, [join(root, "examples/minimal-server/server.mjs")], { cwd: root, env: { ...process.env, PORT: "0" }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the example did not start within 15 s:\n${output}`)), 15_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.once("exit", (code) => reject(new Error(`the example exited with ${code}:\n${output}`)));
  });
}, 120_000);

afterAll(() => {
  child?.kill("SIGTERM");
});

it("is under 150 lines", async () => {
  const { readFileSync } = await import("node:fs");
  expect(readFileSync(join(root, "examples/minimal-server/server.mjs"), "utf8").split("\n").length).toBeLessThan(150);
});

it("passes mop check --include for the operations it implements, with no failure and no skip", async () => {
  const options = { baseUrl, appKey: "demo-app-key", appSecret: "demo-app-secret", merchantIds: ["10001"], controlUrl: false as const, include: INCLUDE, concurrency: 4 };
  const report = await runConformance(options);
  const notPassed = report.results.filter((r) => r.status !== "passed").map((r) => `${r.status} ${r.name}: ${r.reason}`);
  expect(notPassed).toEqual([]);
  // Every selected check ran (the selection is not empty, and nothing was left out).
  const selected = selectChecks({ include: INCLUDE, exclude: [], variants: ["signed", "keyed"] });
  expect(report.results.map((r) => r.name).sort()).toEqual(selected.map((c) => c.name).sort());
  expect(report.results.length).toBeGreaterThan(15);
}, 120_000);

it("answers an operation it leaves out with 100015, and a merchant it may not see with 100008", async () => {
  const { createSignedClient, ApiError } = await import("../../src/client/index.js");
  const client = createSignedClient({ baseUrl: `${baseUrl}/open-api/v1`, appKey: "demo-app-key", appSecret: "demo-app-secret" });
  const notServed = await client.call("getOrder", { params: { path: { orderId: 1 }, query: { merchantId: 10001 } } }).catch((error: unknown) => error);
  expect(notServed).toBeInstanceOf(ApiError);
  expect(notServed).toMatchObject({ code: 100015, httpStatus: 404 });
  const foreign = await client.call("getMerchant", { params: { path: { merchantId: 10002 } } }).catch((error: unknown) => error);
  expect(foreign).toMatchObject({ code: 100008, httpStatus: 403 });
});

it("refuses a used GET replayed with its nonce's end moved into a body (DESIGN item 15)", async () => {
  const { signRequestHeaders } = await import("../../src/signing/index.js");
  const { rawRequest } = await import("../hostile/support.js");
  const headers = signRequestHeaders({ appKey: "demo-app-key", appSecret: "demo-app-secret", body: "", nonce: "minimal-replay-12" });
  const send = (nonce: string, body: string) => {
    const extra = body === "" ? [] : ["Content-Type: application/json", `Content-Length: ${body.length}`];
    const head = ["GET /open-api/v1/merchants?pageNo=1 HTTP/1.1", "Host: 127.0.0.1", "Connection: close", ...Object.entries({ ...headers, "X-Nonce": nonce }).map(([k, v]) => `${k}: ${v}`), ...extra];
    return rawRequest(baseUrl, [`${head.join("\r\n")}\r\n\r\n${body}`]);
  };
  expect(JSON.parse((await send("minimal-replay-12", "")).body).code).toBe(0);
  const replay = await send("minimal-replay-1", "2");
  expect(replay.status, replay.body).toBe(400);
  expect(JSON.parse(replay.body)).toMatchObject({ code: 100009, data: null });
});
