// `npm run bench:profile` as a user runs it (through tsx), kept small: bare Express only, a few
// hundred requests per operation. It must profile both operations, print the tables, exit 0,
// and refuse an unknown target with exit 2.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";
import { runTsxScript } from "../support/process.js";

const root = packageRoot();

const runProfile = (env: Record<string, string>) => runTsxScript(join(root, "scripts", "bench", "profile.ts"), [], { cwd: root, env: { ...process.env, ...env }, timeoutMs: 90_000 });

describe("npm run bench:profile", () => {
  it("profiles bare Express for both operations and prints CPU per request by owner and frame", async () => {
    const { code, stdout, stderr } = await runProfile({ MOP_BENCH_PROFILE_TARGETS: "bare-express", MOP_BENCH_PROFILE_AMOUNT: "400", MOP_BENCH_TOP: "5" });
    expect(code, stderr).toBe(0);
    for (const operation of ["listStores", "createOrder"]) {
      expect(stdout).toContain(`bare-express, ${operation}: CPU µs per request by owner (self time)`);
      expect(stdout).toContain(`bare-express, ${operation}: top frames, self time (µs per request)`);
    }
    const totals = [...stdout.matchAll(/total \(CPU per request, \/proc\)\s+([\d.,]+)/g)].map((match) => Number(match[1]?.replace(/,/g, "")));
    expect(totals).toHaveLength(2);
    for (const total of totals) expect(total).toBeGreaterThan(0);
  }, 120_000);

  it("refuses an unknown target with exit 2, naming the known ones", async () => {
    const { code, stderr } = await runProfile({ MOP_BENCH_PROFILE_TARGETS: "prism" });
    expect(code).toBe(2);
    expect(stderr).toContain("unknown target(s) prism; known: sandbox, bare-express");
  });
});
