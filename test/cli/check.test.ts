// `mop check` as a user runs it: options, exit codes 0/1/2, report files, and no secret ever
// printed (stdout, stderr, JSON, JUnit).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { generate } from "selfsigned";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { ALL_CHECKS } from "../../src/conformance/index.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { startFaultyServer, type FaultyServer } from "../conformance/faulty-server.js";

const SECRETS = ["demo-app-secret", "demo-app-secret-next"];
const API_KEY = "demo-api-key";
const dir = mkdtempSync(join(tmpdir(), "mop-check-cli-"));
let sandbox: Sandbox;
let listening: ListeningSandbox;
let faulty: FaultyServer;

beforeAll(async () => {
  sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: [50, 50, 100] });
  listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  // Wrong in one way: any bearer key lists the merchants.
  faulty = await startFaultyServer(listening.url, { appKey: "demo-app-key", appSecret: SECRETS[0]! }, {
    name: "accepts any API key",
    breaks: ["keyed.bearer-required"],
    request: (r) => (r.url.startsWith("/v1/") && r.headers.authorization ? { ...r, headers: { ...r.headers, authorization: `Bearer ${API_KEY}` } } : r),
  });
});
afterAll(async () => {
  await faulty.close();
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});
async function mop(args: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), isTTY: false, env };
  const code = await main(["check", ...args], io);
  return { code, stdout, stderr };
}

const target = (url: string) => ["--base-url", url, "--app-key", "demo-app-key", "--merchant-id", "10001", "--control-url", `${listening.url}/sandbox`];

function expectNoSecret(...outputs: string[]) {
  for (const output of outputs) {
    for (const secret of [...SECRETS, API_KEY]) expect(output).not.toContain(secret);
  }
}

describe("mop check: usage", () => {
  it("--help prints the options and exits 0", async () => {
    const { code, stdout } = await mop(["--help"]);
    expect(code).toBe(0);
    for (const option of ["--app-secret", "MOP_APP_SECRETS", "--receiver-cert", "--receiver-key", "--notify-url", "--report json:FILE"]) expect(stdout).toContain(option);
  });

  it("--list names every check with its origin and exits 0", async () => {
    const { code, stdout } = await mop(["--list"]);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual(ALL_CHECKS.map((check) => check.name));
    expect(lines.map((line) => line.split(/\s+/)[1])).toEqual(ALL_CHECKS.map((check) => check.origin));
    expect(stdout).toMatch(/^signature\.before-routing\s+designed\s+\[signature, signed\]/m);
  });

  it.each([
    ["no secret at all", [], /--app-secret is required/],
    ["an unknown option", ["--app-secret", "s", "--colour"], /Unknown option '--colour'/],
    ["a malformed --report", ["--app-secret", "s", "--report", "xml:out.xml"], /--report takes json:FILE or junit:FILE/],
    ["a --variant that does not exist", ["--app-secret", "s", "--variant", "soap"], /--variant must be signed or keyed/],
    ["a --timeout that is not a number", ["--app-secret", "s", "--timeout", "soon"], /--timeout must be a non-negative number/],
    ["a --receiver-cert without its key", ["--app-secret", "s", "--receiver-cert", "cert.pem"], /--receiver-cert and --receiver-key go together/],
    ["an unreadable --receiver-cert", ["--app-secret", "s", "--receiver-cert", "/nonexistent/cert.pem", "--receiver-key", "/nonexistent/key.pem"], /--receiver-cert: cannot read \/nonexistent\/cert\.pem \(ENOENT\)/],
    ["an --exclude that matches no check", ["--app-secret", "s", "--exclude", "desgined"], /--include\/--exclude "desgined" matches no check name, group, tag or origin \(source, designed\)/],
  ])("%s: exit 2 with a clear message", async (_label, extra, message) => {
    const { code, stdout, stderr } = await mop([...target(listening.url), ...extra]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).toBe("");
  });

  it("a certificate file that is not PEM: exit 2", async () => {
    const bad = join(dir, "not-a-cert.pem");
    writeFileSync(bad, "hello");
    const { code, stderr } = await mop([...target(listening.url), "--app-secret", "s", "--receiver-cert", bad, "--receiver-key", bad]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/not a PEM certificate and its key/);
  });

  it("nothing listening: exit 2, nothing judged, the secret not printed", async () => {
    const { code, stdout, stderr } = await mop(["--base-url", "http://127.0.0.1:9", "--app-key", "demo-app-key", "--app-secret", SECRETS[0]!, "--timeout", "2000"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9\/open-api\/v1/);
    expectNoSecret(stdout, stderr);
  });

  it("a receiver port already taken: exit 2 naming it", async () => {
    const { code, stderr } = await mop([...target(listening.url), "--app-secret", SECRETS[0]!, "--include", "callbacks", "--receiver-port", String(listening.port)]);
    expect(code).toBe(2);
    expect(stderr).toMatch(new RegExp(`receiver cannot listen on 127\\.0\\.0\\.1:${listening.port}: EADDRINUSE`));
  });

  it("a report file that cannot be written: exit 2 after the run", async () => {
    const { code, stderr } = await mop([...target(listening.url), "--app-secret", SECRETS[0]!, "--include", "signature.non-ascii-body", "--report", "json:/nonexistent/dir/r.json"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/cannot write the json report to \/nonexistent\/dir\/r\.json \(ENOENT\)/);
  });
});

describe("mop check: runs", () => {
  it("a conforming server: exit 0, JSON and JUnit reports written, no secret anywhere", async () => {
    const json = join(dir, "pass.json");
    const junit = join(dir, "pass.xml");
    const { code, stdout, stderr } = await mop([...target(listening.url), "--include", "signature,keyed,callbacks,clock", "--callback-wait", "3000", "--report", `json:${json}`, "--report", `junit:${junit}`], { MOP_APP_SECRETS: SECRETS.join(","), MOP_API_KEY: API_KEY });
    expect(stderr).toBe("");
    expect(code, stdout).toBe(0);
    expect(stdout).toMatch(/\n\d+ passed, 0 failed, 0 skipped in [\d.]+ s against http:\/\/127\.0\.0\.1:\d+\/open-api\/v1\n$/);
    const report = JSON.parse(readFileSync(json, "utf8")) as { counts: { passed: number; failed: number }; results: Array<{ name: string; status: string }> };
    expect(report.counts.failed).toBe(0);
    expect(report.results.map((r) => r.name)).toContain("callbacks.payment-succeeded");
    const xml = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === "testsuite" || name === "testcase" }).parse(readFileSync(junit, "utf8")) as {
      testsuites: { "@_tests": string; "@_failures": string; testsuite: Array<{ "@_name": string; testcase: unknown[] }> };
    };
    expect(xml.testsuites["@_failures"]).toBe("0");
    expect(Number(xml.testsuites["@_tests"])).toBe(report.results.length);
    expect(xml.testsuites.testsuite.map((suite) => suite["@_name"])).toEqual(["mop check: source", "mop check: designed"]);
    expect(xml.testsuites.testsuite.flatMap((suite) => suite.testcase)).toHaveLength(report.results.length);
    expect(stdout).toMatch(/^PASS signature\.hex-signature \[source\] \(\d+ ms\)$/m);
    expect(stdout).toMatch(/^PASS signature\.before-routing \[designed\] \(\d+ ms\)$/m);
    expectNoSecret(stdout, stderr, readFileSync(json, "utf8"), readFileSync(junit, "utf8"));
  });

  it("--exclude designed runs only what the source demands; --include designed the rest", async () => {
    const source = await mop([...target(listening.url), "--include", "signature", "--exclude", "designed"], { MOP_APP_SECRET: SECRETS[0]! });
    expect(source.code, source.stdout).toBe(0);
    expect(source.stdout).toContain("signature.hex-signature");
    expect(source.stdout).not.toContain("signature.before-routing");
    expect(source.stdout).toMatch(/\nsource: {3}\d+ passed, 0 failed, 0 skipped \(what the source document demands\)\ndesigned: 0 passed, 0 failed, 0 skipped/);
    const designed = await mop([...target(listening.url), "--include", "designed", "--exclude", "callbacks,responses,int64,validation,idempotency,state,permissions"], { MOP_APP_SECRET: SECRETS[0]! });
    expect(designed.code, designed.stdout).toBe(0);
    expect(designed.stdout).toContain("signature.before-routing");
    expect(designed.stdout).toContain("signature.body-on-bodyless-operation");
    expect(designed.stdout).not.toContain("signature.hex-signature");
  });

  it("a server wrong in one way: exit 1, the failure explained, no secret anywhere", async () => {
    const json = join(dir, "fail.json");
    const junit = join(dir, "fail.xml");
    const { code, stdout, stderr } = await mop([...target(faulty.url), "--api-key", API_KEY, "--include", "keyed,signature.wrong-secret", "--report", `json:${json}`, "--report", `junit:${junit}`], { MOP_APP_SECRET: SECRETS[0]! });
    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL keyed\.bearer-required \[source\]: .*\n {4}problem: {2}the server accepted an unknown API key\n {4}expected: refusal with code 401\n {4}rule: /);
    expect(stdout).toMatch(/Authorization: Bearer …/);
    const report = JSON.parse(readFileSync(json, "utf8")) as { counts: { failed: number } };
    expect(report.counts.failed).toBe(1);
    expect(readFileSync(junit, "utf8")).toMatch(/<failure message="the server accepted an unknown API key">/);
    expectNoSecret(stdout, stderr, readFileSync(json, "utf8"), readFileSync(junit, "utf8"));
  });

  it("repeated --app-secret: requests are signed with the first", async () => {
    const wrongFirst = await mop([...target(listening.url), "--app-secret", "not-the-secret", "--app-secret", SECRETS[0]!, "--include", "signature.non-ascii-body"]);
    expect(wrongFirst.code).toBe(1);
    expect(wrongFirst.stdout).toMatch(/code 100003/);
    expectNoSecret(wrongFirst.stdout, wrongFirst.stderr);
    expect(wrongFirst.stdout).not.toContain("not-the-secret");
    const rightFirst = await mop([...target(listening.url), "--app-secret", SECRETS[0]!, "--app-secret", "not-the-secret", "--include", "signature.non-ascii-body"]);
    expect(rightFirst.code).toBe(0);
  });

  it("--receiver-cert/--receiver-key: the receiver serves HTTPS", async () => {
    const pems = await generate([{ name: "commonName", value: "127.0.0.1" }], { keySize: 2048, algorithm: "sha256", extensions: [{ name: "subjectAltName", altNames: [{ type: 7, ip: "127.0.0.1" }] }] });
    writeFileSync(join(dir, "cert.pem"), pems.cert);
    writeFileSync(join(dir, "key.pem"), pems.private);
    const json = join(dir, "tls.json");
    // The sandbox does not trust this certificate: the callback cannot arrive, but the receiver's URL shows TLS.
    const { code, stdout } = await mop([...target(listening.url), "--app-secret", SECRETS[0]!, "--include", "callbacks", "--callback-wait", "300", "--receiver-cert", join(dir, "cert.pem"), "--receiver-key", join(dir, "key.pem"), "--report", `json:${json}`]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/no callback arrived/);
    expect((JSON.parse(readFileSync(json, "utf8")) as { target: { callbackReceiver: string } }).target.callbackReceiver).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/mop-check\//);
  });
});

describe("mop check: the process", () => {
  it("exits 2 on a usage error, the secret not echoed", () => {
    const child = spawnSync(process.execPath, ["--import", "tsx", "-e", "const { main } = await import('./src/cli/main.ts'); process.exitCode = await main(process.argv.slice(1));", "check", "--app-secret", SECRETS[0]!, "--base-url", "nope"], {
      cwd: join(import.meta.dirname, "../.."),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(child.status).toBe(2);
    expect(child.stderr).toMatch(/--base-url must be an http\(s\) URL/);
    expectNoSecret(child.stdout, child.stderr);
  });
});
