// The benchmarks warn when they run on a Node.js the package does not support: the ratios they
// judge move with the runtime (bare Express gains more from a newer Node than the sandbox does).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runtimeWarning } from "../../scripts/bench/lib/report.js";
import { packageRoot } from "../../src/util/package-root.js";
import { runTsxScript } from "../support/process.js";

describe("runtimeWarning", () => {
  it("warns below the engines floor and names the range and a way to run a supported Node", () => {
    const warning = runtimeWarning("v20.20.2", ">=22.12.0");
    expect(warning).toContain("v20.20.2");
    expect(warning).toContain(">=22.12.0");
    expect(warning).toContain("npx -p node@24 npm run bench");
    expect(runtimeWarning("v22.11.0", ">=22.12.0")).toContain("below the package's engines");
  });

  it("is silent at and above the floor", () => {
    expect(runtimeWarning("v22.12.0", ">=22.12.0")).toBeUndefined();
    expect(runtimeWarning("v22.20.1", ">=22.12.0")).toBeUndefined();
    expect(runtimeWarning("v24.21.0", ">=22.12.0")).toBeUndefined();
  });

  it("reads the floor from package.json by default", () => {
    const engines = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { engines: { node: string } }).engines.node;
    expect(runtimeWarning("v18.0.0")).toContain(engines);
    expect(runtimeWarning("v99.0.0")).toBeUndefined();
  });
});

describe("npm run bench names its runtime", () => {
  // As a user runs it (through tsx; `npm run bench` builds first), its quickest section only.
  it("prints the Node it runs on, warns exactly when that Node is below engines, and records the warning", async () => {
    const root = packageRoot();
    const { code, stdout, stderr } = await runTsxScript(join(root, "scripts", "bench", "index.ts"), ["--only", "signing", "--quick"], { cwd: root, timeoutMs: 60_000 });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`"node":"${process.version}"`);
    const expected = runtimeWarning();
    if (expected) expect(stdout).toContain(`WARNING: ${expected}`);
    else expect(stdout).not.toContain("WARNING:");
    const file = /results in (\S+\.json)/.exec(stdout)?.[1];
    expect(file).toBeDefined();
    expect((JSON.parse(readFileSync(file!, "utf8")) as { runtimeWarning: unknown }).runtimeWarning).toBe(expected ?? null);
  }, 90_000);
});
