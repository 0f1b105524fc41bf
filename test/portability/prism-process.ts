// Stoplight Prism's validating proxy (`prism proxy`) as a child process on 127.0.0.1: started from
// the installed @stoplight/prism-cli on one of the bundled specs, in front of an upstream URL.
// Its log is kept, so a test can read every violation Prism reports.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
export const PRISM_CLI = join(root, "node_modules", "@stoplight", "prism-cli", "dist", "index.js");

export interface PrismProxy {
  /** http://127.0.0.1:PORT; Prism serves the spec's paths at its root. */
  origin: string;
  /** Everything Prism printed so far. */
  log(): string;
  /**
   * Prism's log lines about violations so far: "Violation: …" (any severity; logged when the
   * answer is passed on) and, with --errors, the VIOLATIONS problem it answers instead.
   */
  violations(): string[];
  /** Settles when Prism's log matches (its log is written after it answers), or rejects after timeoutMs. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** ms from spawn until Prism said it was listening. */
  startMs: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Colour codes out, so log lines can be matched as text. */
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");

export async function startPrismProxy(options: { spec: "signed" | "keyed"; upstream: string; errors: boolean; timeoutMs?: number }): Promise<PrismProxy> {
  if (!existsSync(PRISM_CLI)) throw new Error("@stoplight/prism-cli is not installed (npm ci installs it as a devDependency)");
  const port = await freePort();
  const args = [PRISM_CLI, "proxy", "-h", "127.0.0.1", "-p", String(port), ...(options.errors ? ["--errors"] : []), join(root, "generated", `${options.spec}.openapi.json`), options.upstream];
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0" } });
  let output = "";
  const listeners = new Set<() => void>();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start within ${options.timeoutMs ?? 60_000} ms:\n${output}`)), options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output += plain(chunk.toString());
      for (const listener of listeners) listener();
      if (output.includes("Prism is listening on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited (${code}) before listening:\n${output}`));
    });
  });
  const startMs = Math.round(performance.now() - started);
  return {
    origin: `http://127.0.0.1:${port}`,
    log: () => output,
    violations: () => output.split("\n").filter((line) => /Violation:|errors#VIOLATIONS/.test(line)).map((line) => line.trim()),
    startMs,
    waitForLog: (pattern, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`Prism's log did not show ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
