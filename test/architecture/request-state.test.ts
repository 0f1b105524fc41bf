// The facts of a request live in one typed state (src/server/state.ts) and are read through one
// summary (src/server/summary.ts): no step keeps its own res.locals key, no route reaches into
// the dashboard, and res.json is replaced in one place.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../src");
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? files(path) : path.endsWith(".ts") ? [path] : [];
  });
const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }));

describe("one typed request state", () => {
  it("keeps res.locals to the state's own module", () => {
    const offenders = sources.filter(({ path, text }) => path !== join("server", "state.ts") && /\bres\.locals\b|\.locals\s*(\.|\[)/.test(text.replace(/\/\/.*$/gm, "")));
    expect(offenders.map(({ path }) => path)).toEqual([]);
  });

  it("lets no route of the sandbox import the dashboard", () => {
    const offenders = sources.filter(({ path, text }) => path.startsWith(join("sandbox", "routes")) && /from\s+["']\.\.\/dashboard\//.test(text));
    expect(offenders.map(({ path }) => path)).toEqual([]);
  });

  it("replaces res.json in one place of the kit (its answer writer)", () => {
    const offenders = sources.filter(({ path, text }) => path !== join("server", "answer.ts") && /\bres\.json\s*=(?!=)/.test(text));
    expect(offenders.map(({ path }) => path)).toEqual([]);
  });
});
