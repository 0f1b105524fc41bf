// The benchmarks warn when they run on a Node.js the package does not support: the ratios they
// judge move with the runtime (bare Express gains more from a newer Node than the sandbox does).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runtimeWarning } from "../../scripts/bench/lib/report.js";

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
