// Stoplight Prism's validating proxy (`prism proxy`) as a child process on 127.0.0.1: started from
// the installed @stoplight/prism-cli on one of the bundled specs, in front of an upstream URL.
// Its log is kept, so a test can read every violation Prism reports.
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { packageRoot } from "../../src/util/package-root.js";
import { startProcess } from "../support/process.js";

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
  const prism = await startProcess(process.execPath, args, { cwd: root, env: { ...process.env, NODE_OPTIONS: "", FORCE_COLOR: "0" }, ready: /Prism is listening on/, timeoutMs: options.timeoutMs ?? 60_000 });
  const startMs = Math.round(performance.now() - started);
  const output = () => plain(prism.output());
  return {
    origin: `http://127.0.0.1:${port}`,
    log: output,
    violations: () => output().split("\n").filter((line) => /Violation:|errors#VIOLATIONS/.test(line)).map((line) => line.trim()),
    startMs,
    waitForLog: (pattern, timeoutMs = 10_000) =>
      new Promise<void>((resolve, reject) => {
        // Checked again whenever Prism prints (startProcess has added the chunk to output() by then).
        const streams = [prism.child.stdout, prism.child.stderr].filter((stream) => stream !== null);
        const done = () => {
          clearTimeout(timer);
          for (const stream of streams) stream.off("data", check);
        };
        const check = () => {
          if (!pattern.test(output())) return;
          done();
          resolve();
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`Prism's log did not show ${pattern} within ${timeoutMs} ms`));
        }, timeoutMs);
        for (const stream of streams) stream.on("data", check);
        check();
      }),
    stop: () => prism.stop(),
  };
}
