// Fair to every conforming server: one whose clock is off is diagnosed once (not failed check by
// check), one slightly off is still judged right, an HTTPS-only server's callbacks reach a
// receiver serving TLS, and callbacks signed with another valid secret of the app verify.
import { readFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance, textReport, type ConformanceOptions, type ConformanceReport } from "../../src/conformance/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { startFaultyServer, type FaultyServer } from "./faulty-server.js";
import { faultsFor } from "./faults.js";

const credentials = { appKey: "demo-app-key", appSecret: "demo-app-secret" };
const schedule = [50, 50, 100, 100, 200];
const started: Sandbox[] = [];

async function start(options: Parameters<typeof createSandbox>[0]): Promise<ListeningSandbox> {
  const sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: schedule, ...options });
  started.push(sandbox);
  return sandbox.listen({ port: 0, host: "127.0.0.1" });
}
afterAll(async () => {
  await Promise.all(started.map((sandbox) => sandbox.close()));
});

function options(baseUrl: string, controlBase: string, patch: Partial<ConformanceOptions> = {}): ConformanceOptions {
  return { baseUrl, ...credentials, merchantIds: ["10001"], foreignMerchantId: "10004", apiKey: "demo-api-key", controlUrl: `${controlBase}/sandbox`, callbackWaitMs: 3000, concurrency: 6, ...patch };
}

const notPassed = (report: ConformanceReport) =>
  report.results
    .filter((r) => r.status !== "passed")
    .map((r) => `${r.status} ${r.name}: ${r.reason}`)
    .join("\n");

describe("a server whose clock is off", () => {
  it("beyond the window: one failure naming the skew, every signing check skipped, the rest still run", async () => {
    const sandbox = await start({ clock: { now: () => Date.now() + 400_000 } });
    const report = await runConformance(options(sandbox.url, sandbox.url));
    const failed = report.results.filter((r) => r.status === "failed");
    expect(failed.map((r) => r.name)).toEqual(["clock.within-window"]);
    expect(failed[0]!.failure!.message).toMatch(/100004.*control API clock: 40[01] s ahead of this machine's/);
    expect(failed[0]!.failure!.exchange?.response?.status).toBe(401);
    const skipped = report.results.filter((r) => r.status === "skipped");
    expect(skipped.length).toBeGreaterThan(45);
    for (const result of skipped) expect(result.reason).toMatch(/see clock\.within-window/);
    // The key-based interface does not sign: its checks still ran and passed.
    expect(report.results.filter((r) => r.status === "passed").map((r) => r.name).every((name) => name.startsWith("keyed."))).toBe(true);
    expect(report.counts.passed).toBe(3);
    // The text report says the cause once.
    expect(textReport(report)).toMatch(new RegExp(`\n  ${skipped.length} checks: not run: the server refuses requests timed by this machine's clock \\(see clock\\.within-window\\)\n    responses\\.syncCustomer, `));
  });

  it.each([60, -60])("within the window (%i s): the timestamp probes are aimed at its clock and pass", async (offsetSeconds) => {
    const sandbox = await start({ clock: { now: () => Date.now() + offsetSeconds * 1000 } });
    const report = await runConformance(options(sandbox.url, sandbox.url, { include: ["signature", "clock"] }));
    expect(notPassed(report)).toBe("");
    expect(report.clock?.aimSeconds).toBeGreaterThanOrEqual(offsetSeconds - 1);
    expect(report.clock?.aimSeconds).toBeLessThanOrEqual(offsetSeconds + 1);
  });
});

describe("HTTPS-only notifyUrl and secret rotation", () => {
  let tls: { cert: string; key: string };
  let rotated: ListeningSandbox;
  let httpsOnly: FaultyServer;

  beforeAll(async () => {
    const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], {
      keySize: 2048,
      algorithm: "sha256",
      extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }],
    });
    tls = { cert: pems.cert, key: pems.private };
    // The app's secrets in rotation: the server signs callbacks with its primary, the new one.
    // (Edited as text: the fixtures hold ids above 2^53.)
    const text = readFileSync(new URL("../../src/sandbox/fixtures/default.json", import.meta.url), "utf8");
    const fixtures = text.replace(/"appSecrets": \[\s*"demo-app-secret",\s*"demo-app-secret-next"\s*\]/, `"appSecrets": ["rotated-secret", "${credentials.appSecret}"]`);
    expect(fixtures).not.toBe(text);
    rotated = await start({ fixtures, fetch: fetchTrusting(tls.cert) });
    httpsOnly = await startFaultyServer(rotated.url, credentials, faultsFor(credentials).find((fault) => fault.name.startsWith("refuses every http notifyUrl"))!);
  });
  afterAll(async () => {
    await httpsOnly.close();
  });

  it("the callback check passes through a receiver serving TLS, with both secrets given", async () => {
    const report = await runConformance(options(httpsOnly.url, rotated.url, { include: ["callbacks"], appSecrets: ["rotated-secret"], receiverTls: tls }));
    expect(notPassed(report)).toBe("");
    expect(report.counts.passed).toBe(1);
    expect(report.target.callbackReceiver).toMatch(/^https:\/\/127\.0\.0\.1:\d+\//);
  });

  it("a callback signed with a secret not given fails, naming how many secrets were tried", async () => {
    const report = await runConformance(options(rotated.url, rotated.url, { include: ["callbacks"] }));
    const result = report.results.find((r) => r.name === "callbacks.payment-succeeded")!;
    expect(result.status).toBe("failed");
    expect(result.failure!.message).toMatch(/signature does not verify/);
    expect(result.failure!.expected).toMatch(/1 given; pass every valid one with --app-secret/);
  });
});

/** A fetch for the sandbox's callback deliveries that trusts one self-signed certificate. */
function fetchTrusting(ca: string): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.protocol !== "https:") return fetch(input, init);
    return new Promise<Response>((resolve, reject) => {
      const req = httpsRequest(url, { method: init?.method ?? "GET", headers: init?.headers as Record<string, string>, ca, ...(init?.signal && { signal: init.signal }) }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0 })));
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(typeof init?.body === "string" ? init.body : undefined);
    });
  }) as typeof fetch;
}
