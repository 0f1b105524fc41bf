// One `npm pack` per test run, shared by every packaging test that installs the package as users
// get it. Packing stages a clean copy of the repository (no dist/, no installs, no local output)
// and runs the package's own prepack (the tsc build and the docs site): about a minute and a half
// each time, so it is done once. The first worker that asks packs; the others wait for its result.
// The run's directory comes from the packaging project's global set-up (packed-tarball.setup.ts),
// which also removes it afterwards; a file run on its own outside that project packs into a
// directory of its own.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { inject } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";

declare module "vitest" {
  export interface ProvidedContext {
    packRunDir: string;
  }
}

export interface PackedTarball {
  /** Absolute path of the .tgz. */
  tarball: string;
  filename: string;
  size: number;
  unpackedSize: number;
  /** Paths inside the package, as npm pack lists them. */
  entries: string[];
  /** How long staging and packing took, in ms (0 for a worker that waited). */
  packMs: number;
}

const root = packageRoot();
/** Top-level entries not copied for packing: installs, builds, local output. */
const NOT_COPIED = new Set(["node_modules", ".git", "dist", "coverage", "bench-results", join("docs", "site")]);
const { npm_config_call: _call, npm_config_package: _package, ...inherited } = process.env;
const NPM_ENV = { ...inherited, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false", npm_config_loglevel: "error" };
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const WAIT_MS = 10 * 60_000;

function runDir(): string {
  let dir: string | undefined;
  try {
    dir = inject("packRunDir");
  } catch {
    dir = undefined;
  }
  return dir ?? mkdtempSync(join(tmpdir(), "mop-pack-run-"));
}

function npmPack(stage: string, packs: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(npm, ["pack", "--json", "--pack-destination", packs], { cwd: stage, env: NPM_ENV, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`npm pack failed in ${stage}:\n${error.message}\n${stdout.slice(-3000)}\n${stderr.slice(-3000)}`));
      else resolve(stdout);
    });
  });
}

async function pack(dir: string): Promise<PackedTarball> {
  const started = performance.now();
  const stage = join(dir, "stage");
  cpSync(root, stage, { recursive: true, filter: (source) => !NOT_COPIED.has(relative(root, source)) && !source.endsWith(".tgz") });
  symlinkSync(join(root, "node_modules"), join(stage, "node_modules"), "dir");
  const packs = join(dir, "packs");
  mkdirSync(packs);
  const stdout = await npmPack(stage, packs);
  // Lifecycle scripts may print before the JSON: read from the array's opening bracket.
  const [info] = JSON.parse(stdout.slice(stdout.search(/^\[/m))) as Array<{ filename: string; size: number; unpackedSize: number; files: Array<{ path: string }> }>;
  return {
    tarball: join(packs, info!.filename),
    filename: info!.filename,
    size: info!.size,
    unpackedSize: info!.unpackedSize,
    entries: info!.files.map((file) => file.path),
    packMs: Math.round(performance.now() - started),
  };
}

let mine: Promise<PackedTarball> | undefined;

/** The run's packed tarball: packed by the first caller of the run, waited for by the others. */
export function packedTarball(): Promise<PackedTarball> {
  mine ??= (async () => {
    const dir = runDir();
    const result = join(dir, "result.json");
    const failure = join(dir, "failure.txt");
    try {
      mkdirSync(join(dir, "lock"));
    } catch {
      const deadline = Date.now() + WAIT_MS;
      while (Date.now() < deadline) {
        if (existsSync(result)) return { ...(JSON.parse(readFileSync(result, "utf8")) as PackedTarball), packMs: 0 };
        if (existsSync(failure)) throw new Error(`packing failed in another test file:\n${readFileSync(failure, "utf8")}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      throw new Error(`no packed tarball in ${dir} after ${WAIT_MS} ms`);
    }
    try {
      const packed = await pack(dir);
      // Written whole, then renamed: a waiting worker never reads half of it.
      writeFileSync(`${result}.tmp`, JSON.stringify(packed));
      renameSync(`${result}.tmp`, result);
      return packed;
    } catch (error) {
      writeFileSync(failure, (error as Error).message);
      throw error;
    }
  })();
  return mine;
}
