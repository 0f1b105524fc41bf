// What docs/scenarios.md and the signed spec say about the scenarios is what the sandbox does:
// the test amounts and their effects, every fault kind and callback variant of the control spec,
// and the control operations that reach them.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../src/contract/index.js";
import { OUTCOME_AMOUNTS } from "../../src/sandbox/scenarios/outcomes.js";
import { packageRoot } from "../../src/util/package-root.js";

const guide = readFileSync(join(packageRoot(), "docs", "scenarios.md"), "utf8");
const control = loadBundle("sandbox-control");

describe("docs/scenarios.md and the signed spec", () => {
  it.each(OUTCOME_AMOUNTS.map((entry) => [entry.totalAmount, entry.effect] as const))("list the test amount %i and what paying it ends in", (amount, effect) => {
    expect(guide).toContain(`| ${amount} | ${effect} |`);
    const sandboxServers = (loadBundle("signed").servers as { url: string; description: string }[]).filter((server) => server.url.startsWith("http://127.0.0.1"));
    expect(sandboxServers[0]!.description).toContain(String(amount));
  });

  it("name every fault kind and callback variant of the control spec, and how to reach each", () => {
    for (const kind of control.components.schemas.FaultKind.enum as string[]) {
      expect(guide).toContain(`"kind": "${kind}"`);
      expect(guide).toContain(`X-Sandbox-Fault: ${kind}`);
    }
    for (const variant of control.components.schemas.CallbackVariant.enum as string[]) {
      expect(guide).toContain(`redeliverCallback {"variant": "${variant}"}`);
      expect(guide).toContain(`mop trigger EVENT --variant ${variant}`);
    }
  });

  it("name the control operations of the scenarios", () => {
    for (const operationId of ["createFault", "listFaults", "deleteFault", "redeliverCallback", "payTrade", "advanceClock", "resetClock"]) expect(guide).toContain(operationId);
  });
});
