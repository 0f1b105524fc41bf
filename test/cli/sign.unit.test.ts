import { createHmac } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";

interface ValidVector {
  name: string;
  appKey: string;
  appSecret: string;
  timestamp: string;
  nonce: string;
  body: string;
  stringToSign: string;
  expectedSign: string;
}
const vectors = JSON.parse(readFileSync(new URL("../../vectors/signing-vectors.json", import.meta.url), "utf8")) as { valid: ValidVector[] };
const byName = (name: string) => {
  const vector = vectors.valid.find((candidate) => candidate.name === name);
  if (!vector) throw new Error(`no vector ${name}`);
  return vector;
};

const dir = mkdtempSync(join(tmpdir(), "mop-sign-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function mopSign(args: string[]) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = { stdout: (text) => void (stdout += text), stderr: (text) => void (stderr += text), isTTY: false, env: {} };
  const code = await main(["sign", ...args], io);
  return { code, stdout, stderr };
}

function vectorArgs(vector: ValidVector): string[] {
  const args = ["--app-key", vector.appKey, "--app-secret", vector.appSecret, "--timestamp", vector.timestamp, "--nonce", vector.nonce];
  return vector.body === "" ? args : [...args, "--body", vector.body];
}

function headerLines(stdout: string): Record<string, string> {
  return Object.fromEntries(stdout.trimEnd().split("\n").map((line) => [line.slice(0, line.indexOf(": ")), line.slice(line.indexOf(": ") + 2)]));
}

describe("mop sign prints the headers", () => {
  it.each(vectors.valid.map((vector) => [vector.name, vector] as const))("%s: X-Sign equals the vector", async (_name, vector) => {
    const { code, stdout, stderr } = await mopSign(vectorArgs(vector));
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(headerLines(stdout)).toEqual({
      "X-App-Key": vector.appKey,
      "X-Timestamp": vector.timestamp,
      "X-Nonce": vector.nonce,
      "X-Sign": vector.expectedSign,
      "String-To-Sign": JSON.stringify(vector.stringToSign),
    });
    expect(stdout).not.toContain(vector.appSecret);
  });

  it("prints a JSON object with --json", async () => {
    const vector = byName("post-utf8-chinese-and-emoji");
    const { code, stdout } = await mopSign([...vectorArgs(vector), "--json"]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({
      headers: { "X-App-Key": vector.appKey, "X-Timestamp": vector.timestamp, "X-Nonce": vector.nonce, "X-Sign": vector.expectedSign },
      stringToSign: vector.stringToSign,
    });
    expect(stdout).not.toContain(vector.appSecret);
  });

  it("signs the raw bytes of --body-file", async () => {
    const vector = byName("post-long-body");
    const file = join(dir, "long.json");
    writeFileSync(file, vector.body, "utf8");
    const args = vectorArgs({ ...vector, body: "" });
    const { code, stdout } = await mopSign([...args, "--body-file", file]);
    expect(code).toBe(0);
    expect(headerLines(stdout)["X-Sign"]).toBe(vector.expectedSign);
  });

  it("signs a --body-file that is not valid UTF-8 byte for byte, and says the display is approximate", async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0x00, 0x7d]);
    const file = join(dir, "binary.bin");
    writeFileSync(file, bytes);
    const { code, stdout, stderr } = await mopSign(["--app-key", "k", "--app-secret", "s", "--timestamp", "1718870400", "--nonce", "nonce-0001", "--body-file", file]);
    expect(code).toBe(0);
    const expected = createHmac("sha256", "s").update(Buffer.concat([Buffer.from("k1718870400nonce-0001"), bytes])).digest("base64");
    expect(headerLines(stdout)["X-Sign"]).toBe(expected);
    expect(stderr).toMatch(/not printable UTF-8/);
  });

  it("makes a fresh timestamp and UUID nonce when none is given", async () => {
    const { code, stdout } = await mopSign(["--app-key", "demo-app-key", "--app-secret", "demo-app-secret-0123456789"]);
    expect(code).toBe(0);
    const headers = headerLines(stdout);
    expect(headers["X-Timestamp"]).toMatch(/^[0-9]{10}$/);
    expect(headers["X-Nonce"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(headers["X-Sign"]).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  });

  it("prints the usage with --help", async () => {
    const { code, stdout } = await mopSign(["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: mop sign --app-key KEY --app-secret SECRET/);
    expect(stdout).toContain("--body-file FILE");
  });
});

describe("mop sign --curl", () => {
  const base = ["--app-key", "demo-app-key", "--app-secret", "demo-app-secret-0123456789", "--timestamp", "1718870400", "--nonce", "nonce-0001"];
  const sign = (body: string) =>
    createHmac("sha256", "demo-app-secret-0123456789").update(`demo-app-key1718870400nonce-0001${body}`).digest("base64");

  it.each<[string, { given: string[]; want: string }]>([
    [
      "sends a body with POST, Content-Type and the exact body, quoting ' for the shell",
      {
        given: [...base, "--body", `{"remark":"it's \\"fine\\"\\n"}`, "--curl", "https://sandbox.example.com/open-api/v1/orders"],
        want: [
          "curl -sS -X POST 'https://sandbox.example.com/open-api/v1/orders' \\",
          "  -H 'Content-Type: application/json' \\",
          "  -H 'X-App-Key: demo-app-key' \\",
          "  -H 'X-Timestamp: 1718870400' \\",
          "  -H 'X-Nonce: nonce-0001' \\",
          `  -H 'X-Sign: ${sign(`{"remark":"it's \\"fine\\"\\n"}`)}' \\`,
          `  --data-binary '{"remark":"it'\\''s \\"fine\\"\\n"}'`,
          "",
        ].join("\n"),
      },
    ],
    [
      "sends a GET without body headers when there is no body",
      {
        given: [...base, "--curl", "https://sandbox.example.com/open-api/v1/orders/1?merchantId=10001&x='y'"],
        want: [
          "curl -sS 'https://sandbox.example.com/open-api/v1/orders/1?merchantId=10001&x='\\''y'\\''' \\",
          "  -H 'X-App-Key: demo-app-key' \\",
          "  -H 'X-Timestamp: 1718870400' \\",
          "  -H 'X-Nonce: nonce-0001' \\",
          `  -H 'X-Sign: ${sign("")}'`,
          "",
        ].join("\n"),
      },
    ],
    [
      "uses the method given with --method",
      {
        given: [...base, "--curl", "https://sandbox.example.com/open-api/v1/orders/1/cancel", "--method", "post"],
        want: [
          "curl -sS -X POST 'https://sandbox.example.com/open-api/v1/orders/1/cancel' \\",
          "  -H 'X-App-Key: demo-app-key' \\",
          "  -H 'X-Timestamp: 1718870400' \\",
          "  -H 'X-Nonce: nonce-0001' \\",
          `  -H 'X-Sign: ${sign("")}'`,
          "",
        ].join("\n"),
      },
    ],
  ])("%s", async (_name, { given, want }) => {
    const { code, stdout } = await mopSign(given);
    expect(code).toBe(0);
    expect(stdout).toBe(want);
    expect(stdout).not.toContain("demo-app-secret");
  });

  it("points curl at the file when the body cannot travel as text", async () => {
    const file = join(dir, "nul.bin");
    writeFileSync(file, Buffer.from([0x7b, 0x00, 0x7d]));
    const { code, stdout } = await mopSign([...base, "--body-file", file, "--curl", "http://localhost:8080/open-api/v1/orders"]);
    expect(code).toBe(0);
    expect(stdout).toContain(`--data-binary '@${file}'`);
  });

  it("adds the curl command to --json output", async () => {
    const { stdout } = await mopSign([...base, "--json", "--curl", "http://localhost:8080/open-api/v1/stores"]);
    expect(JSON.parse(stdout)).toMatchObject({ curl: expect.stringMatching(/^curl -sS 'http:\/\/localhost:8080\/open-api\/v1\/stores' \\\n {2}-H 'X-App-Key: demo-app-key'/) });
  });
});

describe("mop sign usage errors exit 2", () => {
  const key = ["--app-key", "demo-app-key"];
  const secret = ["--app-secret", "demo-app-secret-0123456789"];
  it.each<[string, { given: string[]; want: RegExp }]>([
    ["without --app-key", { given: [...secret], want: /--app-key is required/ }],
    ["with an empty --app-key", { given: ["--app-key", "", ...secret], want: /--app-key is required/ }],
    ["without --app-secret", { given: [...key], want: /--app-secret is required/ }],
    ["with both --body and --body-file", { given: [...key, ...secret, "--body", "{}", "--body-file", "x.json"], want: /either --body or --body-file, not both/ }],
    ["with an unknown option", { given: [...key, ...secret, "--secret", "x"], want: /Unknown option '--secret'/ }],
    ["with a stray argument", { given: [...key, ...secret, "extra"], want: /extra/ }],
    ["with an option missing its value", { given: [...secret, "--app-key"], want: /--app-key/ }],
    ["with an unreadable --body-file", { given: [...key, ...secret, "--body-file", join(dir, "missing.json")], want: /cannot read --body-file .*missing\.json.*ENOENT/ }],
    ["with a millisecond --timestamp", { given: [...key, ...secret, "--timestamp", "1718870400123"], want: /--timestamp: .*milliseconds/ }],
    ["with a malformed --nonce", { given: [...key, ...secret, "--nonce", "short"], want: /--nonce: X-Nonce must be 8 to 64 characters/ }],
    ["with --method but no --curl", { given: [...key, ...secret, "--method", "GET"], want: /--method applies only with --curl/ }],
    ["with a --method that is not a method", { given: [...key, ...secret, "--curl", "http://x", "--method", "PO ST"], want: /--method must be an HTTP method/ }],
  ])("%s", async (_name, { given, want }) => {
    const { code, stdout, stderr } = await mopSign(given);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^mop sign: /);
    expect(stderr).toMatch(want);
    expect(stderr).not.toContain("demo-app-secret");
  });
});
