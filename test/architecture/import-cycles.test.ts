// No import cycles in src/: a module may only import what sits below it, so each part can be
// read, tested and moved on its own. madge finds the cycles (type-only imports count: a type
// cycle is still two modules that cannot be understood apart). The fixture proves the check
// resolves our ESM imports (`./x.js` naming `x.ts`) and so can fail.
import { join } from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

interface MadgeResult {
  circular(): string[][];
  obj(): Record<string, string[]>;
}
type Madge = (path: string, config: { fileExtensions: string[]; detectiveOptions?: object }) => Promise<MadgeResult>;

// madge is CommonJS without type declarations.
const madge = createRequire(import.meta.url)("madge") as Madge;

const ROOT = join(import.meta.dirname, "../..");

async function cycles(dir: string): Promise<string[][]> {
  const result = await madge(dir, { fileExtensions: ["ts"] });
  return result.circular();
}

describe("import cycles", () => {
  it("are found in a fixture that has one, type-only imports included", async () => {
    expect(await cycles(join(import.meta.dirname, "fixtures/cycle"))).toEqual([["lookup.ts", "order.ts", "trade.ts"]]);
  });

  it("there are none in src/", async () => {
    const result = await madge(join(ROOT, "src"), { fileExtensions: ["ts"] });
    // Sanity: the graph is the real one (every part's index reaches its modules).
    expect(result.obj()["conformance/context.ts"]).toEqual(expect.arrayContaining(["conformance/resources.ts", "conformance/errors.ts"]));
    expect(result.circular()).toEqual([]);
  });
});
