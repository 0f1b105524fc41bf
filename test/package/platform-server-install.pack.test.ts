// The package as a platform team installs it to build a server on the kit: a packed tarball of a
// clean copy of the repository (the run's one, test/support/packed-tarball.ts), installed into an empty project with the server kit's peers.
// npm says nothing about the package itself (no install script to approve: the published
// package.json has no `prepare`), the tarball holds no source map pointing at sources it does
// not ship, and examples/platform-server, copied out of the installed package, compiles
// strictly against the shipped types. (The tarball's other contents: pack-install.test.ts.)
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";
import { packedTarball } from "../support/packed-tarball.js";

const exec = promisify(execFile);
const root = packageRoot();
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; engines: { node: string }; scripts: Record<string, string>; devDependencies: Record<string, string> };
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const { npm_config_call: _call, npm_config_package: _package, ...inherited } = process.env;
// Warnings are what this test reads: npm's own log level, not "error".
const NPM_ENV = { ...inherited, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_loglevel: "warn" };

async function run(command: string, args: string[], cwd: string, timeout = 120_000): Promise<{ stdout: string; stderr: string }> {
  try {
    return await exec(command, args, { cwd, env: NPM_ENV, timeout, maxBuffer: 32 * 1024 * 1024 });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}

describe("the packed package, installed to build a server on the kit", () => {
  let work: string;
  let tarball: string;
  let entries: string[];
  let consumer: string;
  let installOutput = "";

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "mop-kit-install-"));
    // The run's one packed tarball (the package's own prepack), shared with the other packaging tests.
    ({ tarball, entries } = await packedTarball());

    consumer = join(work, "consumer");
    mkdirSync(consumer);
    writeFileSync(join(consumer, "package.json"), JSON.stringify({ name: "platform-team", version: "1.0.0", private: true, type: "module" }, null, 2));
    const peers = [`express@${manifest.devDependencies.express}`, `express-openapi-validator@${manifest.devDependencies["express-openapi-validator"]}`];
    try {
      const installed = await run(npm, ["install", "--no-audit", "--no-fund", "--offline", tarball, ...peers], consumer, 180_000);
      installOutput = `${installed.stdout}\n${installed.stderr}`;
    } catch {
      const installed = await run(npm, ["install", "--no-audit", "--no-fund", tarball, ...peers], consumer, 240_000);
      installOutput = `${installed.stdout}\n${installed.stderr}`;
    }
  }, 420_000);

  afterAll(() => {
    if (work && !process.env.MOP_KEEP_PACK) rmSync(work, { recursive: true, force: true });
  });

  it("publishes no install-time script and no source map pointing at unshipped sources", () => {
    const packedManifest = JSON.parse(readFileSync(join(consumer, "node_modules", manifest.name, "package.json"), "utf8")) as { scripts?: Record<string, string> };
    expect(packedManifest.scripts?.prepare).toBeUndefined();
    for (const hook of ["preinstall", "install", "postinstall"]) expect(packedManifest.scripts?.[hook], hook).toBeUndefined();
    expect(manifest.scripts.prepack).toContain("npm run build");
    expect(entries.filter((path) => path.endsWith(".map"))).toEqual([]);
    const maps = readdirSync(join(consumer, "node_modules", manifest.name, "dist", "src", "server")).filter((name) => name.endsWith(".map"));
    expect(maps).toEqual([]);
  });

  it("installs with no warning from the package itself", () => {
    // On a Node below `engines` (the Node 20 build machines) npm rightly warns EBADENGINE: that
    // warning is about the machine, and only there is it left out.
    const [major, minor] = process.versions.node.split(".").map(Number) as [number, number];
    const [, wantMajor, wantMinor] = /^>=(\d+)\.(\d+)/.exec(manifest.engines.node)!.map(Number) as [number, number, number];
    const supported = major > wantMajor || (major === wantMajor && minor >= wantMinor);
    const warnings = installOutput.split("\n").filter((line) => /\bwarn\b/i.test(line) && (supported || !/\bEBADENGINE\b/.test(line)));
    expect(warnings.filter((line) => line.includes(manifest.name) || /install-scripts|allowScripts|EBADENGINE/i.test(line)), installOutput).toEqual([]);
  });

  it("ships examples/platform-server, which compiles strictly against the shipped types", async () => {
    const example = join(consumer, "node_modules", manifest.name, "examples", "platform-server");
    expect(readdirSync(example).sort()).toEqual(["README.md", "catalog.ts", "orders.ts", "platform.ts", "server.ts"]);
    const copy = join(consumer, "platform-server");
    cpSync(example, copy, { recursive: true });
    // Only @types/node is lent from the repository; everything else resolves from the project's node_modules.
    const types = join(consumer, "types");
    mkdirSync(types);
    symlinkSync(join(root, "node_modules", "@types", "node"), join(types, "node"), "dir");
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", lib: ["ES2023"], strict: true, noEmit: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true, skipLibCheck: true, types: ["node"], typeRoots: ["./types"] },
        include: ["platform-server/*.ts"],
      }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const output = await exec(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], { cwd: consumer }).then(
      () => "",
      (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ""}${error.stderr ?? ""}`,
    );
    expect(output).toBe("");
  }, 120_000);
});
