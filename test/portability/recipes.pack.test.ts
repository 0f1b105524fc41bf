// The recipes of examples/other-languages, run as their headers say, on the toolchains they name
// (Python 3, JDK 17+, Go 1.19+, PHP 8, standard libraries only):
//   - the signer checks itself against vectors/signing-vectors.json, and fails on a tampered copy;
//   - the flow program completes sync → createOrder (an id above 2^53) → getOrder → payOrder →
//     control payTrade → queryPayment against a live sandbox; its printed ids are checked through
//     the package's own client;
//   - the receiver verifies the sandbox's real callback for that payment, and refuses what a
//     receiver must refuse (a wrong secret, a reused nonce, a stale timestamp), accepts the second
//     secret of a rotation and handles a redelivered event once.
// A missing toolchain skips its language locally (saying which) and fails under CI, whose .ci/run
// installs them with apt. Languages run concurrently; each has its own receiver and user.
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSignedClient } from "../../src/index.js";
import { createSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { sign } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { startProcess, type StartedProcess } from "../support/process.js";

const root = packageRoot();
const RECIPES = join(root, "examples", "other-languages");
const VECTORS = join(root, "vectors", "signing-vectors.json");
const TWO_TO_53 = 2n ** 53n;
const APP = { appKey: "demo-app-key", appSecret: "demo-app-secret", nextSecret: "demo-app-secret-next" };

// Go's caches outside the user's home: the same on every run (fast after the first), never a download.
const GO_ENV = { GOCACHE: join(tmpdir(), "mop-recipes-go-cache"), GOPATH: join(tmpdir(), "mop-recipes-gopath"), GOPROXY: "off", GOTOOLCHAIN: "local", GOFLAGS: "" };

interface Language {
  name: "python" | "java" | "go" | "php";
  /** The tool and the oldest version the recipes are written for. */
  tool: string;
  version: () => string;
  minimum: (version: string) => boolean;
  checkVectors: (file: string) => string[];
  flow: (args: string[]) => string[];
  /** The receiver on a free port; `ready` captures its URL or port. */
  receiver: string[];
  ready: RegExp;
  env?: Record<string, string>;
}

const firstNumber = (text: string, pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
const LANGUAGES: Language[] = [
  {
    name: "python",
    tool: "python3",
    version: () => execFileSync("python3", ["--version"], { encoding: "utf8" }),
    minimum: (v) => firstNumber(v, /Python 3\.(\d+)/) >= 8,
    checkVectors: (file) => ["python3", "mop_signing.py", "--check-vectors", file],
    flow: (args) => ["python3", "flow.py", ...args],
    receiver: ["python3", "receiver.py", "--port", "0"],
    ready: /receiving callbacks on (http:\/\/127\.0\.0\.1:\d+\/notify)/,
    env: { PYTHONDONTWRITEBYTECODE: "1" }, // no __pycache__ in the shipped folder
  },
  {
    name: "java",
    tool: "java",
    version: () => {
      const answer = spawnSync("java", ["-version"], { encoding: "utf8" }); // it prints on stderr
      if (answer.error) throw answer.error;
      return answer.stderr + answer.stdout;
    },
    minimum: (v) => firstNumber(v, /version "(\d+)/) >= 17,
    checkVectors: (file) => ["java", "Signing.java", "--check-vectors", file],
    flow: (args) => ["java", "Flow.java", ...args],
    receiver: ["java", "CallbackReceiver.java", "--port", "0"],
    ready: /receiving callbacks on (http:\/\/127\.0\.0\.1:\d+\/notify)/,
  },
  {
    name: "go",
    tool: "go",
    version: () => execFileSync("go", ["version"], { encoding: "utf8", env: { ...process.env, ...GO_ENV } }),
    minimum: (v) => firstNumber(v, /go1\.(\d+)/) >= 19,
    checkVectors: (file) => ["go", "run", "signing.go", "--check-vectors", file],
    flow: (args) => ["go", "run", "flow.go", ...args],
    receiver: ["go", "run", "receiver.go", "--port", "0"],
    ready: /receiving callbacks on (http:\/\/127\.0\.0\.1:\d+\/notify)/,
    env: GO_ENV,
  },
  {
    name: "php",
    tool: "php",
    version: () => execFileSync("php", ["--version"], { encoding: "utf8" }),
    minimum: (v) => firstNumber(v, /PHP (\d+)/) >= 8,
    checkVectors: (file) => ["php", "signing.php", "--check-vectors", file],
    flow: (args) => ["php", "flow.php", ...args],
    // PHP's built-in server runs the receiver script for every request, as a web server would.
    receiver: ["php", "-S", "127.0.0.1:0", "receiver.php"],
    ready: /Development Server \((http:\/\/127\.0\.0\.1:\d+)\) started/,
  },
];

/** Why the language cannot run here, or undefined; under CI a missing toolchain is a failure. */
function missing(language: Language): string | undefined {
  let version: string;
  try {
    version = language.version();
  } catch {
    return `${language.tool} is not installed`;
  }
  return language.minimum(version) ? undefined : `${language.tool} is too old (${version.trim().split("\n")[0]})`;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function run(language: Language, argv: string[], env: Record<string, string> = {}): Promise<Run> {
  const [command, ...args] = argv;
  return new Promise((resolve) => {
    execFile(command!, args, { cwd: join(RECIPES, language.name), env: { ...process.env, ...language.env, ...env }, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

let sandbox: Sandbox;
let url: string;
let work: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "mop-recipes-"));
  // Callbacks go to the receivers on loopback over plain http, retried quickly.
  sandbox = createSandbox({ allowInsecureNotify: true, callbackSchedule: [200, 500, 1000] });
  url = (await sandbox.listen({ port: 0, host: "127.0.0.1" })).url;
  await sandbox.ready();
});

afterAll(async () => {
  await sandbox?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A copy of the vectors with one valid signature and one expected code changed. */
function tamperedVectors(): string {
  const vectors = JSON.parse(readFileSync(VECTORS, "utf8"));
  vectors.valid[1].expectedSign = vectors.valid[0].expectedSign;
  vectors.wrongVariants[0].expectedCode = 100004;
  const file = join(work, "tampered-vectors.json");
  writeFileSync(file, JSON.stringify(vectors));
  return file;
}

/** A callback as the platform sends it, signed by hand: the headers and the exact body. */
function callback(eventId: string, options: { secret?: string; timestamp?: number; nonce?: string } = {}) {
  // Written as text: the merchant id is above 2^53, which no JavaScript number holds.
  const body =
    `{"id":${JSON.stringify(eventId)},"type":"payment.succeeded","createTime":"2026-11-22T10:17:02+08:00","data":{"tradeNo":"2026112210153000001",` +
    `"outTradeNo":"M-1","merchantId":9007199254740993,"totalAmount":4250,"tradeStatus":"SUCCESS","payTime":"2026-11-22T10:17:02+08:00","attach":null}}`;
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const nonce = options.nonce ?? `n${Math.random().toString(36).slice(2, 14)}x`;
  const headers = { "Content-Type": "application/json", "X-App-Key": APP.appKey, "X-Timestamp": timestamp, "X-Nonce": nonce, "X-Sign": sign({ appKey: APP.appKey, appSecret: options.secret ?? APP.appSecret, timestamp, nonce, body }) };
  return { headers, body };
}

async function deliver(receiverUrl: string, delivery: { headers: Record<string, string>; body: string }): Promise<{ status: number; text: string }> {
  const answer = await fetch(receiverUrl, { method: "POST", headers: delivery.headers, body: delivery.body });
  return { status: answer.status, text: await answer.text() };
}

describe.concurrent.each(LANGUAGES.map((language) => [language.name, language] as const))("examples/other-languages/%s", (_name, language) => {
  const why = missing(language);
  if (why && process.env.CI) throw new Error(`${language.name} recipes: ${why}; CI must have it (.ci/run installs it with apt)`);
  if (why) console.warn(`examples/other-languages/${language.name}: skipped because ${why}.`);
  const test = why ? it.skip : it;
  const title = (text: string) => (why ? `${text} — SKIPPED: ${why}` : text);

  test(title("the signer passes every case of the signing vectors, and a tampered copy fails naming its cases"), async ({ expect }) => {
    const vectors = JSON.parse(readFileSync(VECTORS, "utf8")) as { valid: unknown[]; wrongVariants: unknown[] };
    const passed = await run(language, language.checkVectors(VECTORS));
    expect(passed.code, passed.stderr).toBe(0);
    expect(passed.stdout.trim()).toBe(`signing vectors: ${vectors.valid.length} valid cases and ${vectors.wrongVariants.length} wrong variants pass`);

    const failed = await run(language, language.checkVectors(tamperedVectors()));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("FAIL post-ascii-json: X-Sign differs from expectedSign");
    expect(failed.stderr).toContain("FAIL separators-between-fields: the verifier answered 100003, the vectors expect 100004");
  }, 120_000);

  test(title("the flow pays an order whose id is above 2^53, and the receiver verifies the sandbox's callback"), async ({ expect }) => {
    const stateDir = join(work, `${language.name}-receiver-state`);
    mkdirSync(stateDir);
    const receiver: StartedProcess = await startProcess(language.receiver[0]!, language.receiver.slice(1), {
      cwd: join(RECIPES, language.name),
      env: { ...process.env, ...language.env, MOP_APP_SECRETS: `${APP.appSecret},${APP.nextSecret}`, MOP_RECEIVER_STATE: stateDir },
      ready: language.ready,
      timeoutMs: 60_000,
    });
    try {
      const receiverUrl = receiver.match[1]!.endsWith("/notify") ? receiver.match[1]! : `${receiver.match[1]}/notify`;
      const openUserId = `${language.name}-recipe-user`;
      const flow = await run(language, language.flow(["--base-url", url, "--notify-url", receiverUrl, "--open-user-id", openUserId]));
      expect(flow.code, flow.stderr + flow.stdout).toBe(0);
      const orderId = BigInt(/order (\d+) created \(above 2\^53, kept exact\)/.exec(flow.stdout)![1]!);
      const tradeNo = /trade (\d+) waiting for payment: http/.exec(flow.stdout)![1]!;
      expect(orderId).toBeGreaterThan(TWO_TO_53);
      expect(flow.stdout).toContain(`order ${orderId} read back: status 0, totalAmount 5600`);
      expect(flow.stdout).toContain(`payment SUCCESS: trade ${tradeNo}, order ${orderId}, totalAmount 5600`);

      // The ids the program printed are the sandbox's, exactly: read back through the package's client.
      const client = createSignedClient({ baseUrl: `${url}/open-api/v1`, appKey: APP.appKey, appSecret: APP.appSecret });
      const order = await client.call("getOrder", { params: { path: { orderId }, query: { merchantId: 10001 } } });
      expect(order.id).toBe(orderId);
      expect(order.status).toBe(1);
      expect(order.items[0]!.itemName).toBe("拿铁 Latte");

      // The sandbox's own signed delivery of payment.succeeded for that trade, verified.
      await expect.poll(receiver.output, { timeout: 20_000 }).toMatch(new RegExp(`verified payment\\.succeeded evt_\\w+: .*"tradeNo":"${tradeNo}".*"outTradeNo":"ORDER-${orderId}"`));

      // What a receiver must refuse, and what it must accept.
      const stamp = Date.now().toString(36);
      const wrongSecret = await deliver(receiverUrl, callback(`evt_wrong_${stamp}`, { secret: "not-the-secret" }));
      expect(wrongSecret.status).toBe(401);
      expect(wrongSecret.text).toMatch(/^100003 /);
      const stale = await deliver(receiverUrl, callback(`evt_stale_${stamp}`, { timestamp: Math.floor(Date.now() / 1000) - 301 }));
      expect(stale.text).toMatch(/^100004 /);
      const first = callback(`evt_once_${stamp}`);
      expect(await deliver(receiverUrl, first)).toEqual({ status: 200, text: "success" });
      const replayed = await deliver(receiverUrl, first);
      expect(replayed.status).toBe(401);
      expect(replayed.text).toMatch(/^100005 /);
      const redelivered = await deliver(receiverUrl, callback(`evt_once_${stamp}`, { secret: APP.nextSecret }));
      expect(redelivered, "a redelivery (fresh nonce, the rotation's second secret) is acknowledged").toEqual({ status: 200, text: "success" });
      await expect.poll(receiver.output, { timeout: 5_000 }).toContain(`duplicate payment.succeeded evt_once_${stamp}: acknowledged again, not handled again`);
      expect(receiver.output().match(new RegExp(`verified payment\\.succeeded evt_once_${stamp}`, "g"))).toHaveLength(1);
      expect(receiver.output(), "the big merchant id kept its digits").toContain('"merchantId":9007199254740993');
      expect(receiver.output()).toContain("refused callback: 100003");
    } finally {
      await receiver.stop();
    }
  }, 180_000);
});

describe("the Java recipes' shared classes", () => {
  it("are the same text in every single-file program", () => {
    const block = (file: string, name: string) => {
      const text = readFileSync(join(RECIPES, "java", file), "utf8");
      const found = new RegExp(`// ---- ${name}:[\\s\\S]*?// ---- end ${name} ----`).exec(text);
      expect(found, `${file} has ${name}`).not.toBeNull();
      return found![0];
    };
    for (const name of ["MopSigner", "MopJson"]) {
      const signing = block("Signing.java", name);
      expect(block("Flow.java", name), name).toBe(signing);
      expect(block("CallbackReceiver.java", name), name).toBe(signing);
    }
  });
});
