// The x-codeSamples that lint/code-samples.js (a Redocly decorator) writes into the bundled
// specs: every operation has a TypeScript and a curl sample; every TypeScript sample compiles
// under the repository's strict settings against this package's sources (imported by package
// name through a path mapping) and runs against the sandbox; every curl sample names the
// operation's method, path and headers, signs the exact body it sends, and is accepted by the
// sandbox when run in bash.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { createSandbox, type ListeningSandbox, type Sandbox } from "../../src/sandbox/index.js";
import { packageRoot } from "../../src/util/package-root.js";
import { deref, loadBundledSpec, type Spec } from "./spec-loader.js";

const run = promisify(execFile);
const root = packageRoot();
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options", "trace"];
const SANDBOX_ORIGIN = "http://127.0.0.1:4010";
const SIGNATURE_HEADERS = ["X-App-Key: $MOP_APP_KEY", "X-Timestamp: $X_TIMESTAMP", "X-Nonce: $X_NONCE", "X-Sign: $X_SIGN"];
/** The operations the source document describes (those without x-source: designed), and the key-based one. */
const DESCRIBED = {
  signed: ["createOrder", "getOrder", "createCashierSession", "queryPayment", "purchaseMemberCard", "listCardTemplates", "listMerchants", "getMerchant", "listStores"],
  keyed: ["listAccountMerchants"],
};

type Variant = "signed" | "keyed";
interface Sample {
  lang: string;
  label?: string;
  source: string;
}
interface Operation {
  variant: Variant;
  operationId: string;
  method: string;
  path: string;
  operation: Record<string, any>;
  typescript: Sample;
  curl: Sample;
}

const specs: Record<Variant, Spec> = { signed: loadBundledSpec("signed"), keyed: loadBundledSpec("keyed") };

function operationsOf(variant: Variant): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries<any>(specs[variant].paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const samples: Sample[] = operation["x-codeSamples"] ?? [];
      out.push({
        variant,
        operationId: operation.operationId,
        method,
        path,
        operation,
        typescript: samples.find((s) => s.lang === "TypeScript")!,
        curl: samples.find((s) => s.lang === "curl")!,
      });
    }
  }
  return out;
}

const operations = [...operationsOf("signed"), ...operationsOf("keyed")];
const fileName = (op: Operation) => `${op.variant}-${op.operationId}.ts`;

/** The first example of the JSON request body, as the decorator reads it. */
function firstBodyExample(op: Operation): unknown {
  const body = op.operation.requestBody && deref(specs[op.variant], op.operation.requestBody);
  const media = body?.content?.["application/json"];
  if (!media) return undefined;
  const first = media.examples ? deref(specs[op.variant], Object.values<any>(media.examples)[0]) : undefined;
  return first ? first.value : media.example;
}

/** Undoes shellQuote: '...' with '\'' for each single quote. */
function shellUnquote(word: string): string {
  expect(word.startsWith("'") && word.endsWith("'"), `${word} is single-quoted`).toBe(true);
  return word.slice(1, -1).replace(/'\\''/g, "'");
}

describe("x-codeSamples in the bundled specs", () => {
  it("every operation of the signed and keyed specs has one TypeScript and one curl sample", () => {
    const missing = operations.filter((op) => !op.typescript || !op.curl).map((op) => `${op.variant} ${op.operationId}`);
    expect(missing).toEqual([]);
    for (const op of operations) {
      expect(op.operation["x-codeSamples"].map((s: Sample) => [s.lang, s.label])).toEqual([
        ["TypeScript", "TypeScript"],
        ["curl", "curl"],
      ]);
    }
    // The source-described operations, and the designed ones by the same decorator.
    for (const variant of ["signed", "keyed"] as const) {
      const ids = operations.filter((op) => op.variant === variant).map((op) => op.operationId);
      expect(ids).toEqual(expect.arrayContaining(DESCRIBED[variant]));
    }
    expect(operations.filter((op) => op.operation["x-source"] === "designed").length).toBeGreaterThan(0);
    // Callbacks are sent by the platform, not called: no samples there.
    for (const item of Object.values<any>(specs.signed.webhooks ?? {})) expect(item.post["x-codeSamples"]).toBeUndefined();
  });

  it.each(operations.map((op) => [`${op.variant} ${op.operationId}`, op] as const))(
    "%s: the TypeScript sample calls its operation with the first body example and only safe integers",
    (_label, op) => {
      const { source } = op.typescript;
      const factory = op.variant === "signed" ? "createSignedClient" : "createKeyedClient";
      expect(source).toContain(`import { ${factory} } from "merchant-open-platform";`);
      expect(source).toContain(`await client.call(${JSON.stringify(op.operationId)}`);
      expect(source.includes("  body: "), "a body exactly when the operation has one").toBe(firstBodyExample(op) !== undefined);
      // Every numeric literal is a safe integer or a plain number: no bigint-sized ids.
      const file = ts.createSourceFile(fileName(op), source, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
      const unsafe: string[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isBigIntLiteral(node)) unsafe.push(node.text);
        if (ts.isNumericLiteral(node) && /^\d+$/.test(node.text) && !Number.isSafeInteger(Number(node.text))) unsafe.push(node.text);
        ts.forEachChild(node, visit);
      };
      visit(file);
      expect(unsafe).toEqual([]);
    },
  );

  it.each(operations.map((op) => [`${op.variant} ${op.operationId}`, op] as const))(
    "%s: the curl sample names the method, the path and the headers, and sends the body it signs",
    (_label, op) => {
      const { source } = op.curl;
      const command = /^curl -X ([A-Z]+) ('[^']*')/m.exec(source);
      expect(command, "a curl -X METHOD 'URL' line").not.toBeNull();
      expect(command![1]).toBe(op.method.toUpperCase());
      const url = new URL(shellUnquote(command![2]!));
      const basePath = new URL(specs[op.variant].servers[0].url.replace("{baseUrl}", SANDBOX_ORIGIN)).pathname;
      expect(url.origin).toBe(SANDBOX_ORIGIN);
      // The path is the operation's template with each {parameter} filled.
      const template = new RegExp(`^${(basePath + op.path).replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+")}$`);
      expect(url.pathname).toMatch(template);
      const declared = (op.operation.parameters ?? []).map((p: unknown) => deref(specs[op.variant], p));
      for (const parameter of declared.filter((p: any) => p.required && p.in === "query")) {
        expect(url.searchParams.has(parameter.name), `required query parameter ${parameter.name}`).toBe(true);
      }
      for (const name of url.searchParams.keys()) {
        expect(declared.some((p: any) => p.in === "query" && p.name === name), `query ${name} is declared`).toBe(true);
      }

      const headers = [...source.matchAll(/-H (?:'([^']*)'|"([^"]*)")/g)].map((m) => m[1] ?? m[2]);
      const body = firstBodyExample(op);
      if (op.variant === "signed") {
        expect(headers).toEqual(expect.arrayContaining(SIGNATURE_HEADERS));
        // How to get them: computed in the shell, or printed by `npx mop sign --curl`.
        expect(source).toMatch(/^X_TIMESTAMP=\$\(date \+%s\)/m);
        expect(source).toMatch(/^X_NONCE=\$\(openssl rand -hex 16\)/m);
        expect(source).toContain(`X_SIGN=$(printf '%s' "$MOP_APP_KEY$X_TIMESTAMP$X_NONCE${body === undefined ? "" : "$BODY"}"`);
        expect(source).toContain('#   npx mop sign --app-key "$MOP_APP_KEY" --app-secret "$MOP_APP_SECRET"');
        expect(source).toContain(`--curl ${command![2]}`);
      } else {
        expect(headers).toEqual(["Authorization: Bearer $MOP_API_KEY"]);
      }
      if (body === undefined) {
        expect(source).not.toContain("--data-binary");
        expect(headers).not.toContain("Content-Type: application/json");
      } else {
        expect(headers).toContain("Content-Type: application/json");
        // Compact JSON of the first request example, signed and sent as the same variable.
        const bodyLine = /^BODY=('.*')$/m.exec(source);
        expect(bodyLine, "BODY='...'").not.toBeNull();
        expect(shellUnquote(bodyLine![1]!)).toBe(JSON.stringify(body));
        expect(source).toMatch(/--data-binary "\$BODY"$/m);
        expect(source).toContain('--body "$BODY"');
      }
    },
  );
});

describe("the samples against the compiler and the sandbox", () => {
  let dir: string;
  let sandbox: Sandbox;
  let listening: ListeningSandbox;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "mop-code-samples-"));
    sandbox = createSandbox();
    listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  });
  afterAll(async () => {
    await sandbox?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("every TypeScript sample type-checks (strict, NodeNext) against the package's sources", async () => {
    const check = join(dir, "typecheck");
    mkdirSync(check);
    writeFileSync(join(check, "package.json"), JSON.stringify({ type: "module" }));
    const files = operations.map((op) => {
      writeFileSync(join(check, fileName(op)), op.typescript.source);
      return fileName(op);
    });
    // A control sample with a wrong body: proves the check can fail.
    writeFileSync(
      join(check, "control-wrong.ts"),
      'import { createSignedClient } from "merchant-open-platform";\n' +
        'const client = createSignedClient({ baseUrl: "http://127.0.0.1:4010", appKey: "k", appSecret: "s" });\n' +
        'await client.call("createOrder", { body: { merchantId: "10001" } });\n',
    );
    writeFileSync(
      join(check, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2023"],
          strict: true,
          noUncheckedIndexedAccess: true,
          isolatedModules: true,
          verbatimModuleSyntax: true,
          skipLibCheck: true,
          noEmit: true,
          types: ["node"],
          typeRoots: [join(root, "node_modules", "@types")],
          paths: { "merchant-open-platform": [join(root, "src", "index.ts")] },
        },
        files: [...files, "control-wrong.ts"],
      }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const result = await run(process.execPath, [tsc, "-p", join(check, "tsconfig.json"), "--pretty", "false"], { cwd: check }).then(
      () => ({ stdout: "" }),
      (error: { stdout?: string; stderr?: string }) => ({ stdout: `${error.stdout ?? ""}${error.stderr ?? ""}` }),
    );
    const errors = result.stdout.split("\n").filter((line) => /error TS\d+/.test(line));
    const samples = errors.filter((line) => !line.startsWith("control-wrong.ts"));
    expect(samples, `samples that do not compile:\n${result.stdout}`).toEqual([]);
    expect(errors.some((line) => line.startsWith("control-wrong.ts")), `the control sample must fail:\n${result.stdout}`).toBe(true);
  }, 60_000);

  // The answer may be a business error (the sample's ids need not exist in the sandbox), but
  // never an authentication, validation or routing error: the request itself is right.
  const refused = new Set<number>([
    ...Object.values(SignedErrors)
      .filter((e) => e.http === 401 || e.http === 405 || e.http === 415 || e.code === SignedErrors.VALIDATION_FAILED.code || e.code === SignedErrors.PATH_NOT_FOUND.code)
      .map((e) => e.code),
    ...Object.values(KeyedErrors)
      .filter((e) => e.http !== 429 && e.http !== 500)
      .map((e) => e.code),
  ]);

  it("every curl sample, run in bash against the sandbox, is accepted", async () => {
    const env = { ...process.env, MOP_APP_KEY: "demo-app-key", MOP_APP_SECRET: "demo-app-secret", MOP_API_KEY: "demo-api-key" };
    const answers: string[] = [];
    for (const op of operations) {
      const script = `set -euo pipefail\n${op.curl.source.split(SANDBOX_ORIGIN).join(listening.url).replace(/^curl /m, "curl -sS ")}`;
      const { stdout } = await run("bash", ["-c", script], { env, timeout: 15_000 });
      const answer = JSON.parse(stdout) as { code: number };
      answers.push(`${op.operationId}: ${answer.code}`);
      expect(refused.has(answer.code), `${op.variant} ${op.operationId} answered ${stdout}`).toBe(false);
    }
    expect(answers.length).toBe(operations.length);
  }, 60_000);

  it("every TypeScript sample runs against the sandbox", async () => {
    const runDir = join(dir, "run");
    mkdirSync(runDir);
    const index = join(root, "src", "index.ts");
    const credentials = { MOP_APP_KEY: "demo-app-key", MOP_APP_SECRET: "demo-app-secret", MOP_API_KEY: "demo-api-key" };
    const saved = Object.fromEntries(Object.keys(credentials).map((name) => [name, process.env[name]]));
    Object.assign(process.env, credentials);
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      for (const op of operations) {
        const file = join(runDir, fileName(op));
        writeFileSync(file, op.typescript.source.replace('from "merchant-open-platform"', `from ${JSON.stringify(index)}`).split(SANDBOX_ORIGIN).join(listening.url));
        try {
          await import(pathToFileURL(file).href);
          expect(log, `${op.operationId} logs its data`).toHaveBeenCalled();
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          expect(typeof code === "number" && !refused.has(code), `${op.variant} ${op.operationId} threw ${String(error)}`).toBe(true);
        }
        log.mockClear();
      }
    } finally {
      log.mockRestore();
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  }, 60_000);
});
