// Printing results as tables and keeping them as JSON (bench-results/, git-ignored).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { packageRoot } from "../../../src/util/package-root.js";

export type Cell = string | number | null | undefined;

function show(cell: Cell): string {
  if (cell === null || cell === undefined) return "–";
  if (typeof cell === "number") {
    if (!Number.isFinite(cell)) return "–";
    if (Number.isInteger(cell)) return cell.toLocaleString("en-US");
    return Math.abs(cell) >= 100 ? Math.round(cell).toLocaleString("en-US") : cell.toFixed(Math.abs(cell) >= 10 ? 1 : 2);
  }
  return cell;
}

/** A plain-text table; numbers right-aligned. */
export function table(title: string, headers: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map(show));
  const widths = headers.map((header, i) => Math.max(header.length, ...text.map((row) => (row[i] ?? "").length)));
  const numeric = headers.map((_, i) => rows.every((row) => typeof row[i] === "number" || row[i] === null || row[i] === undefined));
  const line = (cells: string[]) => cells.map((cell, i) => (numeric[i] ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd();
  return [`\n${title}`, line(headers), widths.map((w) => "-".repeat(w)).join("  "), ...text.map(line)].join("\n");
}

export function machine(): Record<string, unknown> {
  const cpu = cpus();
  return {
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    cores: cpu.length,
    cpuModel: cpu[0]?.model ?? "unknown",
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
  };
}

/**
 * A warning when the running Node.js is below the package's `engines` range (">=MAJOR.MINOR…"):
 * its figures then describe a runtime the package does not support, and the ratios move with the
 * runtime (bare Express gains more from a newer Node than the sandbox or Prism do). undefined
 * when the version is in range.
 */
export function runtimeWarning(version: string = process.version, engines: string = packageEngines()): string | undefined {
  const floor = /^>=\s*v?(\d+)\.(\d+)/.exec(engines.trim());
  const running = /^v?(\d+)\.(\d+)/.exec(version);
  if (!floor || !running) return undefined;
  const [wantMajor, wantMinor] = [Number(floor[1]), Number(floor[2])];
  const [major, minor] = [Number(running[1]), Number(running[2])];
  if (major > wantMajor || (major === wantMajor && minor >= wantMinor)) return undefined;
  return `Node.js ${version} is below the package's engines (${engines}): these figures describe a runtime it does not support. Run the benchmarks on a supported one, e.g. \`npx -p node@24 npm run bench\`.`;
}

function packageEngines(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { engines?: { node?: string } };
  return manifest.engines?.node ?? "";
}

/** Writes bench-results/<name>-<time>.json and bench-results/<name>-latest.json; answers the first path. */
export function writeResults(name: string, data: unknown): string {
  const dir = join(packageRoot(), "bench-results");
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const file = join(dir, `${name}-${stamp}.json`);
  const text = `${JSON.stringify(data, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value), 2)}\n`;
  writeFileSync(file, text);
  writeFileSync(join(dir, `${name}-latest.json`), text);
  return file;
}

export function median(values: number[]): number {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function percentileOf(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export interface Flags {
  quick: boolean;
  only: Set<string> | undefined;
  /** Seconds per throughput measurement. */
  duration: number | undefined;
  rounds: number | undefined;
}

export function parseFlags(argv: string[]): Flags {
  const flags: Flags = { quick: false, only: undefined, duration: undefined, rounds: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const next = argv[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === "--quick") flags.quick = true;
    else if (arg === "--only") flags.only = new Set(value().split(","));
    else if (arg === "--duration") flags.duration = Number(value());
    else if (arg === "--rounds") flags.rounds = Number(value());
    else if (arg === "--help" || arg === "-h") {
      process.stdout.write(
        "Usage: npm run bench -- [--quick] [--only throughput,client,signing,checker,startup,memory,load,proxy] [--duration SECONDS] [--rounds N]\n" +
          "Set MOP_BENCH_SANDBOX_ROOT to another build of the package to measure its sandbox instead (before/after).\n",
      );
      process.exit(0);
    } else throw new Error(`unknown option ${arg}; try --help`);
  }
  if (flags.duration !== undefined && !(flags.duration > 0)) throw new Error("--duration must be a positive number of seconds");
  if (flags.rounds !== undefined && !(Number.isInteger(flags.rounds) && flags.rounds > 0)) throw new Error("--rounds must be a positive whole number");
  return flags;
}
