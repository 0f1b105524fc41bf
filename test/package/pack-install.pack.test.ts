// The package as a consumer gets it: `npm pack` of a clean copy of the repository (its own
// `prepack` script builds dist/ and the docs site), installed into a fresh ESM project, then used by package
// name only: every export imported with node, a strict NodeNext type check of a consumer file,
// the `mop` command, the spec and signing-vector exports, and the sandbox started from the
// installed files and answering a signed call (its fixtures and the bundled specs are runtime
// files, so a missing one fails here).
//
// The first install is client-only, as a project that only wants the client and the types
// installs it: no express, no express-openapi-validator (optional peers), measured, and `mop
// sandbox` says what to install. Then the quick start's commands run verbatim from the shipped
// docs/quickstart.md (its install line adds the peers), and the remaining checks use that.
//
// The install is offline from the npm cache when it can be (this repository's own install put
// the dependencies there) and falls back to the registry; when neither works the test fails
// with both npm outputs, it does not skip.
import { execFile } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";
import { crawl } from "../docs/crawl.js";
import { packedTarball } from "../support/packed-tarball.js";
import { StartedProcesses } from "../support/process.js";

const exec = promisify(execFile);
const root = packageRoot();
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  exports: Record<string, string | Record<string, string>>;
  bin: Record<string, string>;
};
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const npx = process.platform === "win32" ? "npx.cmd" : "npx";
// Without the settings of an npm command this test may itself run under (npx -c sets
// npm_config_call, which a nested npx would take as its own command).
const { npm_config_call: _call, npm_config_package: _package, ...inherited } = process.env;
const NPM_ENV = {
  ...inherited,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  npm_config_loglevel: "error",
};

/** The code entry points and one export each must have, with its typeof. */
const CODE_EXPORTS: Record<string, [string, string]> = {
  ".": ["createSignedClient", "function"],
  "./client": ["createKeyedClient", "function"],
  "./signing": ["sign", "function"],
  "./callbacks": ["verifyCallback", "function"],
  "./sandbox": ["createSandbox", "function"],
  "./conformance": ["runConformance", "function"],
  "./proxy": ["startProxy", "function"],
  "./server": ["createSignedRouter", "function"],
  "./error-codes": ["SignedErrors", "object"],
};

const timings: Record<string, number> = {};
async function timed<T>(step: string, action: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await action();
  } finally {
    timings[step] = Math.round(performance.now() - started);
  }
}

async function sh(command: string, args: string[], cwd: string, timeout = 60_000, env: NodeJS.ProcessEnv = NPM_ENV): Promise<{ stdout: string; stderr: string }> {
  try {
    return await exec(command, args, { cwd, env, timeout, maxBuffer: 32 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

/** Bytes and package count of a node_modules folder (apparent sizes, symlinks not followed). */
function footprint(folder: string): { bytes: number; packages: number } {
  let bytes = 0;
  let packages = 0;
  const walk = (dir: string, depth: number) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (existsSync(join(path, "package.json")) && (dir.endsWith("node_modules") || dir.includes(`node_modules${sep}@`))) packages += 1;
        walk(path, depth + 1);
      } else bytes += lstatSync(path).size;
    }
  };
  walk(folder, 0);
  return { bytes, packages };
}

const MiB = 1024 * 1024;

/** The shell commands of the guide's ```sh blocks, one per line, in order. */
function guideCommands(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((block) => block[1]!.split("\n").filter((line) => line.trim() !== ""));
}

// Run by node in the consumer project: imports by package name only.
const IMPORT_CHECK = `
import { createRequire } from "node:module";
import spec from "merchant-open-platform/openapi/signed.json" with { type: "json" };

const expected = ${JSON.stringify(CODE_EXPORTS)};
const result = { exports: {}, spec: {}, vectors: {}, sandbox: {} };
for (const [subpath, [name, type]] of Object.entries(expected)) {
  const mod = await import(subpath === "." ? "merchant-open-platform" : "merchant-open-platform" + subpath.slice(1));
  result.exports[subpath] = typeof mod[name] === type ? "ok" : \`\${name} is \${typeof mod[name]}\`;
}

// The bundled spec through its export, with the code samples the decorator wrote.
const create = spec.paths["/orders"].post;
result.spec = { version: spec.info.version, samples: (create["x-codeSamples"] ?? []).map((s) => s.lang) };
const require = createRequire(import.meta.url);
const keyed = require("merchant-open-platform/openapi/keyed.json");
const yamlPath = require.resolve("merchant-open-platform/openapi/signed.yaml");
result.spec.keyedVersion = keyed.info.version;
result.spec.yamlInPackage = yamlPath.includes("node_modules/merchant-open-platform/generated/");

// The signing vectors, checked with the installed signer.
const { sign } = await import("merchant-open-platform/signing");
const vectors = require("merchant-open-platform/signing-vectors.json");
result.vectors = {
  valid: vectors.valid.length,
  signed: vectors.valid.filter((v) => sign({ appKey: v.appKey, appSecret: v.appSecret, timestamp: v.timestamp, nonce: v.nonce, body: v.body }) === v.expectedSign).length,
};

// The sandbox from the installed files (fixtures, specs), and a signed call to it.
const { createSandbox } = await import("merchant-open-platform/sandbox");
const { createSignedClient, createKeyedClient } = await import("merchant-open-platform");
const sandbox = createSandbox();
try {
  const { url } = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  const client = createSignedClient({ baseUrl: url, appKey: "demo-app-key", appSecret: "demo-app-secret" });
  const merchant = await client.call("getMerchant", { params: { path: { merchantId: 10001 } } });
  const keyedClient = createKeyedClient({ baseUrl: url, apiKey: "demo-api-key" });
  const page = await keyedClient.call("listAccountMerchants", { params: { query: { page: 1, limit: 20 } } });
  result.sandbox = { merchantName: merchant.merchantName, accountMerchants: page.merchants.length };
} finally {
  await sandbox.close();
}
console.log(JSON.stringify(result));
`;

// Type-checked (never run) in the consumer project against the installed declarations.
const CONSUMER_TS = `
import { ApiError, createSignedClient, sign, SignedErrors, verifyCallback, type SignedClient } from "merchant-open-platform";
import { createSandbox, type Sandbox } from "merchant-open-platform/sandbox";
import { runConformance, type ConformanceReport } from "merchant-open-platform/conformance";
import { KeyedErrors } from "merchant-open-platform/error-codes";

const client: SignedClient = createSignedClient({ baseUrl: "http://127.0.0.1:4010", appKey: "demo-app-key", appSecret: "demo-app-secret" });
const orderId = await client.call("createOrder", {
  body: { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31002, itemName: "Egg tart", price: 650, quantity: 1 }] },
});
const order = await client.call("getOrder", { params: { path: { orderId }, query: { merchantId: 10001 } } });
const total: number = order.totalAmount;
const merchants = await client.call("listMerchants");
const firstName: string | undefined = merchants.list[0]?.merchantName;
// @ts-expect-error an operationId that does not exist
await client.call("deleteEverything");
// @ts-expect-error merchantId is an integer id, not text
await client.call("getOrder", { params: { path: { orderId }, query: { merchantId: "10001" } } });
// @ts-expect-error createOrder needs its body
await client.call("createOrder");

const signature: string = sign({ appKey: "demo-app-key", appSecret: "demo-app-secret", timestamp: "1718870400", nonce: "n0nce-8f3a2c1d" });
const mismatch: 100003 = SignedErrors.SIGNATURE_MISMATCH.code;
const unauthorized: 401 = KeyedErrors.KEYED_UNAUTHORIZED.code;
const verification = await verifyCallback({ headers: {}, rawBody: "{}", secrets: "demo-app-secret" });
if (verification.ok) {
  const eventId: string = verification.event.id;
  console.log(eventId);
} else {
  const failureCode: number = verification.code;
  console.log(failureCode);
}

const sandbox: Sandbox = createSandbox();
const report: ConformanceReport = await runConformance({ baseUrl: "http://127.0.0.1:4010", appKey: "demo-app-key", appSecret: "demo-app-secret" });
try {
  await client.call("queryPayment", { params: { query: { tradeNo: "2026112210153000001" } } });
} catch (error) {
  if (error instanceof ApiError) console.log(error.code, error.httpStatus);
}
console.log(total, firstName, signature, mismatch, unauthorized, sandbox, report);
`;

describe("npm pack, then install into a fresh project", () => {
  let work: string;
  let tarball: string;
  let entries: string[];
  let consumer: string;
  let clientOnly: { bytes: number; packages: number };
  const processes = new StartedProcesses();

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "mop-pack-"));

    // The run's packed tarball (a clean copy of the repository packed with the package's own
    // prepack: tsc build and docs), shared with the other packaging tests.
    const packed = await timed("npm pack (shared by the run; with prepack: tsc build, docs)", packedTarball);
    tarball = packed.tarball;
    entries = packed.entries;
    console.log(
      `tarball ${packed.filename}: ${(statSync(tarball).size / 1024).toFixed(1)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(1)} KiB unpacked, ${entries.length} files` +
        (packed.packMs > 0 ? `, packed in ${packed.packMs} ms` : ", packed by another test file"),
    );

    consumer = join(work, "consumer");
    mkdirSync(consumer);
    await timed("npm init", () => sh(npm, ["init", "-y"], consumer));
    const consumerManifest = JSON.parse(readFileSync(join(consumer, "package.json"), "utf8")) as Record<string, unknown>;
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ ...consumerManifest, type: "module", private: true }, null, 2));
    await timed("npm install", async () => {
      try {
        await sh(npm, ["install", "--no-audit", "--no-fund", "--offline", tarball], consumer, 120_000);
      } catch (offline) {
        console.warn(`offline install failed, trying the registry:\n${(offline as Error).message.slice(0, 2000)}`);
        try {
          await sh(npm, ["install", "--no-audit", "--no-fund", tarball], consumer, 180_000);
        } catch (online) {
          throw new Error(
            "Cannot install the packed tarball: not offline from the npm cache, and not from the registry (is the network available?).\n" +
              `offline: ${(offline as Error).message.slice(0, 3000)}\nonline: ${(online as Error).message.slice(0, 3000)}`,
          );
        }
      }
    });
    clientOnly = footprint(join(consumer, "node_modules"));
  }, 240_000);

  afterAll(async () => {
    await processes.stopAll();
    console.log(`pack-install timings (ms): ${JSON.stringify(timings)}`);
    // MOP_KEEP_PACK=1 keeps the staged copy, the tarball and the consumer project to look into.
    if (work && process.env.MOP_KEEP_PACK) console.log(`kept ${work}`);
    else if (work) rmSync(work, { recursive: true, force: true });
  });

  it("ships the built code, the bundled specs, the vectors and the runtime fixtures, and nothing else", () => {
    const missing = (path: string) => !entries.includes(path);
    const targets = Object.values(manifest.exports).flatMap((target) => (typeof target === "string" ? [target] : Object.values(target)));
    expect(targets.map((t) => t.replace(/^\.\//, "")).filter(missing), "every exports target is in the tarball").toEqual([]);
    expect(Object.values(manifest.bin).filter(missing), "the bin is in the tarball").toEqual([]);
    expect(
      ["src/sandbox/fixtures/default.json", "src/sandbox/fixtures/fixtures.schema.json", "dist/src/cli/main.js", "dist/generated/signed.d.ts"].filter(missing),
      "runtime files",
    ).toEqual([]);
    for (const name of ["signed", "keyed", "sandbox-control"]) {
      expect(entries).toEqual(expect.arrayContaining([`generated/${name}.openapi.json`, `generated/${name}.openapi.yaml`]));
    }
    // The built docs site (prepack builds it) and the quick start's example scripts.
    expect(
      ["docs/site/index.html", "docs/site/signed.html", "docs/site/keyed.html", "docs/site/sandbox-control.html", "docs/site/guides/quickstart.html", "examples/first-order.mjs", "examples/receive-callbacks.mjs", "examples/minimal-server/server.mjs"].filter(missing),
      "docs site and examples",
    ).toEqual([]);

    const unwanted = entries.filter(
      (path) =>
        path.startsWith("test/") ||
        path.startsWith("openapi/") ||
        path.startsWith("scripts/") ||
        path.startsWith("lint/") ||
        path.startsWith("releases/") ||
        path.includes("node_modules/") ||
        (path.startsWith("src/") && !path.endsWith(".json")) ||
        (path.startsWith("generated/") && path.endsWith(".ts")) ||
        path.endsWith(".tgz"),
    );
    expect(unwanted, "sources, tests, hand-written specs and installs stay out of the tarball").toEqual([]);
    // Every compiled file has its source: no stale output of a deleted module.
    const stale = entries
      .filter((path) => path.startsWith("dist/") && path.endsWith(".js"))
      .filter((path) => {
        const source = join(root, path.slice("dist/".length).replace(/\.js$/, ".ts"));
        try {
          return !statSync(source).isFile();
        } catch {
          return true;
        }
      });
    expect(stale).toEqual([]);
    expect(statSync(tarball).size, "tarball size").toBeLessThan(5 * 1024 * 1024);
  });

  it("installs client-only without the server libraries, and mop sandbox says what to install", async () => {
    const modules = join(consumer, "node_modules");
    expect(existsSync(join(modules, "express")), "express is an optional peer").toBe(false);
    expect(existsSync(join(modules, "express-openapi-validator")), "express-openapi-validator is an optional peer").toBe(false);
    console.log(`client-only install: ${(clientOnly.bytes / MiB).toFixed(1)} MiB in ${clientOnly.packages} packages`);

    const client = `
      import { createSignedClient, verifyCallback, stringifyJson } from "merchant-open-platform";
      const client = createSignedClient({ baseUrl: "http://127.0.0.1:9/open-api/v1", appKey: "k", appSecret: "s" });
      const refused = await verifyCallback({ headers: {}, rawBody: "{}", secrets: "s" });
      console.log(JSON.stringify({ client: typeof client.call, refused: refused.ok === false && refused.name, json: stringifyJson({ id: 9007199254740993n }) }));
    `;
    writeFileSync(join(consumer, "client-only.mjs"), client);
    const { stdout } = await sh(process.execPath, ["client-only.mjs"], consumer);
    expect(JSON.parse(stdout)).toEqual({ client: "function", refused: "SIGNATURE_HEADER_MISSING", json: '{"id":9007199254740993}' });

    const answer = await exec(npx, ["--no-install", "mop", "sandbox"], { cwd: consumer, env: NPM_ENV }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code?: number; stderr?: string }) => ({ code: error.code, stderr: error.stderr ?? "" }),
    );
    expect(answer.code).toBe(1);
    expect(answer.stderr).toContain('needs the package "express"');
    const devDependencies = (manifest as unknown as { devDependencies: Record<string, string> }).devDependencies;
    expect(answer.stderr).toContain(`npm install --save-dev express@${devDependencies.express} express-openapi-validator@${devDependencies["express-openapi-validator"]}`);
    expect(answer.stderr).not.toMatch(/\n\s+at /); // no stack trace
  }, 60_000);

  it("runs the quick start's commands verbatim from the installed docs/quickstart.md", async () => {
    const guide = readFileSync(join(consumer, "node_modules", "merchant-open-platform", "docs", "quickstart.md"), "utf8");
    const commands = guideCommands(guide);
    const find = (prefix: string) => {
      const found = commands.find((command) => command.startsWith(prefix));
      expect(found, `the guide has a command starting with ${prefix}`).toBeDefined();
      return found!;
    };

    // 1. Install: the guide's line, with the package name pointing at the packed tarball.
    const install = find("npm install merchant-open-platform ");
    const installArgs = install.split(/\s+/).slice(2).map((arg) => (arg === "merchant-open-platform" ? tarball : arg));
    await timed("quick start: npm install", async () => {
      try {
        await sh(npm, ["install", "--offline", ...installArgs], consumer, 120_000);
      } catch {
        await sh(npm, ["install", ...installArgs], consumer, 180_000);
      }
    });
    const full = footprint(join(consumer, "node_modules"));
    console.log(`with the sandbox's peers: ${(full.bytes / MiB).toFixed(1)} MiB in ${full.packages} packages`);
    expect(full.bytes).toBeGreaterThan(clientOnly.bytes);

    // The sandbox, on a free port (the guide's documented --port 0) instead of 4010.
    const sandbox = await timed("quick start: sandbox up", () =>
      processes.startShell(`${find("npx mop sandbox ")} --port 0`, { cwd: consumer, env: NPM_ENV, ready: /Signed interface\s+(http:\/\/127\.0\.0\.1:\d+)\/open-api\/v1/, timeoutMs: 30_000 }),
    );
    const base = sandbox.match[1]!;
    const atBase = (command: string) => command.replaceAll("http://127.0.0.1:4010", base);

    // The docs site ships in the package: the sandbox serves the built reference and guides.
    for (const page of ["/docs/", "/docs/signed.html", "/docs/guides/quickstart.html"]) {
      const response = await fetch(`${base}${page}`);
      expect(response.status, page).toBe(200);
      expect(await response.text(), page).not.toContain("not built");
    }

    // Every link of the shipped site resolves under /docs, and on disk in the installed package.
    const overHttp = await crawl(new URL(`${base}/docs/index.html`), async (url) => {
      const response = await fetch(url);
      return response.ok ? { ok: true, html: await response.text() } : { ok: false, status: response.status };
    });
    const installedSite = join(consumer, "node_modules", "merchant-open-platform", "docs", "site");
    const onDisk = await crawl(pathToFileURL(join(installedSite, "index.html")), async (url) => {
      const path = fileURLToPath(url);
      return existsSync(path) ? { ok: true, html: readFileSync(path, "utf8") } : { ok: false, status: 404 };
    });
    expect(overHttp.broken, "links under the sandbox's /docs").toEqual([]);
    expect(onDisk.broken, "links in the installed docs/site").toEqual([]);
    expect(overHttp.pages.length).toBe(onDisk.pages.length);
    expect(overHttp.links).toBeGreaterThan(100);

    // 2. mop sign --curl prints a command; run it once: the customer is synced.
    const signed = await sh("sh", ["-c", atBase(find("npx mop sign "))], consumer);
    expect(signed.stdout).toMatch(/^curl /);
    const synced = await sh("sh", ["-c", signed.stdout], consumer);
    expect(JSON.parse(synced.stdout)).toMatchObject({ code: 0, data: { openUserId: "user-4711" } });

    // 3. The examples, written into the project, and the receiver on a free port (PORT=0).
    const examples = await sh("sh", ["-c", find("npx mop examples")], consumer);
    expect(examples.stdout).toContain("wrote   mop-examples/receive-callbacks.mjs");
    const receiver = await processes.startShell(find("node mop-examples/receive-callbacks.mjs"), {
      cwd: consumer,
      env: { ...NPM_ENV, PORT: "0" },
      ready: /receiving callbacks on (http:\/\/127\.0\.0\.1:\d+\/notify)/,
      timeoutMs: 30_000,
    });

    // 4. The first order, told where the sandbox and the receiver are (MOP_BASE_URL, MOP_NOTIFY_URL).
    const order = await sh("sh", ["-c", find("node mop-examples/first-order.mjs")], consumer, 60_000, {
      ...NPM_ENV,
      MOP_BASE_URL: `${base}/open-api/v1`,
      MOP_NOTIFY_URL: receiver.match[1]!,
    });
    expect(order.stdout).toMatch(/order \d{16,} created \(an int64 id above 2\^53: a bigint\)/);
    const tradeNo = /trade (\d+) \(ORDER-\d+\) waiting for payment/.exec(order.stdout)![1]!;
    expect(order.stdout).toContain(`${base}/cashier/${tradeNo}`);

    // Paid through the control API with the guide's curl line, and the callback arrives verified.
    const pay = find("curl -X POST -H 'Content-Type: application/json' http://127.0.0.1:4010/sandbox/trades/");
    const paid = await sh("sh", ["-c", atBase(pay).replace(/trades\/\d+\/pay/, `trades/${tradeNo}/pay`)], consumer);
    expect(JSON.parse(paid.stdout)).toMatchObject({ code: 0 });
    await expect.poll(receiver.output, { timeout: 15_000 }).toMatch(new RegExp(`verified payment\\.succeeded evt_\\w+: .*"tradeNo":"${tradeNo}".*"attach":"quickstart"`));
    await processes.stopAll();
  }, 240_000);

  it("imports every export by package name, reads the spec and vectors, and runs the sandbox", async () => {
    writeFileSync(join(consumer, "check.mjs"), IMPORT_CHECK);
    const { stdout } = await timed("node check.mjs", () => sh(process.execPath, ["check.mjs"], consumer));
    const result = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, any>;
    expect(result.exports).toEqual(Object.fromEntries(Object.keys(CODE_EXPORTS).map((k) => [k, "ok"])));
    expect(result.spec).toEqual({ version: manifest.version, samples: ["TypeScript", "curl"], keyedVersion: manifest.version, yamlInPackage: true });
    expect(result.vectors.valid).toBeGreaterThan(0);
    expect(result.vectors.signed).toBe(result.vectors.valid);
    expect(result.sandbox.merchantName).toEqual(expect.any(String));
    expect(result.sandbox.accountMerchants).toBeGreaterThan(0);
  }, 60_000);

  it("type-checks a consumer file against the installed declarations (strict, NodeNext)", async () => {
    writeFileSync(join(consumer, "consumer.ts"), CONSUMER_TS);
    // Only @types/node is lent from the repository; everything else resolves from the
    // consumer's own node_modules, as in a real project.
    const types = join(consumer, "types");
    mkdirSync(types);
    symlinkSync(join(root, "node_modules", "@types", "node"), join(types, "node"), "dir");
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023"],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ["node"],
          typeRoots: ["./types"],
        },
        files: ["consumer.ts"],
      }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const output = await timed("tsc consumer.ts", () =>
      exec(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], { cwd: consumer }).then(
        () => "",
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
      ),
    );
    expect(output).toBe("");
  }, 60_000);

  it("runs the mop command through npx", async () => {
    const help = await timed("npx mop --help", () => sh(npx, ["--no-install", "mop", "--help"], consumer));
    expect(help.stdout).toContain("Usage: mop <command>");
    expect(help.stdout).toMatch(/\bsign\b/);
    expect(help.stdout).toMatch(/\bsandbox\b/);
    const version = await timed("npx mop --version", () => sh(npx, ["--no-install", "mop", "--version"], consumer));
    expect(version.stdout.trim()).toBe(manifest.version);
  }, 60_000);

  it("installs the package where node_modules says", () => {
    const installed = JSON.parse(readFileSync(join(consumer, "node_modules", ...manifest.name.split("/"), "package.json"), "utf8")) as { version: string };
    expect(installed.version).toBe(manifest.version);
    expect(tarball.split(sep).pop()).toBe(`${manifest.name}-${manifest.version}.tgz`);
  });
});
