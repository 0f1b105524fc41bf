// The package's layering (docs/architecture.md), read from the import statements of src/: a
// part uses another part only through its index.ts (its public face) or its internal.ts (the face
// for the package's own parts, which no package export reaches), only the parts below it, and only the
// contract layer reads the bundled specs or sets up a JSON Schema validator. util/ (where the
// package is installed), errors.ts (the root error class) and envelopes.ts (the two envelope
// dialects) are leaves anyone may import.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const src = join(root, "src");

/** What each part may import (besides itself). */
const ALLOWED: Record<string, string[]> = {
  util: [],
  json: ["util"],
  "http-guard": [],
  signing: ["util", "json"],
  contract: ["util", "json", "signing"],
  client: ["util", "json", "signing"],
  callbacks: ["util", "json", "signing", "contract", "client", "errors"],
  server: ["util", "json", "signing", "contract"],
  sandbox: ["util", "json", "signing", "contract", "callbacks", "server", "http-guard"],
  proxy: ["util", "json", "signing", "contract", "http-guard"],
  conformance: ["util", "json", "signing", "contract", "callbacks"],
  cli: ["util", "json", "signing", "contract", "client", "callbacks", "server", "sandbox", "proxy", "conformance", "http-guard"],
};

interface Import {
  file: string;
  specifier: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

function importsOf(file: string): Import[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s+["']([^"']+)["']/g), ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => ({ file, specifier: m[1] as string }));
}

/** "sandbox" for src/sandbox/..., "errors" for src/errors.ts, undefined outside src. */
function partOf(path: string): string | undefined {
  const rel = relative(src, path);
  if (rel.startsWith("..")) return undefined;
  const [first, ...rest] = rel.split(/[\\/]/);
  return rest.length === 0 ? first!.replace(/\.[jt]s$/, "") : first;
}

const files = sourceFiles(src);
const imports = files.flatMap(importsOf);
const relativeImports = imports.filter((i) => i.specifier.startsWith("."));

describe("the layers of src/", () => {
  it("has every part in the table", () => {
    const parts = new Set(files.map((file) => partOf(file)!));
    const unknown = [...parts].filter((part) => !(part in ALLOWED) && !["index", "errors", "envelopes"].includes(part));
    expect(unknown).toEqual([]);
  });

  it("crosses from one part into another only through that part's index.ts or internal.ts", () => {
    const offenders = relativeImports
      .filter(({ file, specifier }) => {
        const target = normalize(join(dirname(file), specifier));
        const from = partOf(file);
        const to = partOf(target);
        return to !== undefined && from !== to && from !== "index" && !["errors", "util", "envelopes"].includes(to) && !target.endsWith(`${to}${"/"}index.js`) && !target.endsWith(`${to}${"/"}internal.js`);
      })
      .map(({ file, specifier }) => `${relative(root, file)} imports ${specifier}`);
    expect(offenders).toEqual([]);
  });

  it("imports only the parts below it", () => {
    const offenders = relativeImports
      .filter(({ file, specifier }) => {
        const from = partOf(file);
        const to = partOf(normalize(join(dirname(file), specifier)));
        if (!from || !to || from === to || from === "index" || from === "errors" || to === "errors" || to === "envelopes") return false;
        return !(ALLOWED[from] ?? []).includes(to);
      })
      .map(({ file, specifier }) => `${relative(root, file)} imports ${specifier}`);
    expect(offenders).toEqual([]);
  });

  it("exports no part's internal.ts from the package", () => {
    const exported = JSON.stringify((JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: unknown }).exports);
    expect(exported).not.toMatch(/internal/);
  });

  it("leaves reading the bundled specs and setting up Ajv to the contract layer", () => {
    const offenders = files
      .filter((file) => partOf(file) !== "contract")
      .flatMap((file) => {
        const text = readFileSync(file, "utf8");
        const found: string[] = [];
        if (/from\s+["']ajv(?:\/[^"']*)?["']|from\s+["']ajv-formats["']/.test(text)) found.push("imports ajv");
        if (/packageRoot\(\),\s*["']generated["']/.test(text)) found.push("reads generated/ at run time");
        return found.map((what) => `${relative(root, file)} ${what}`);
      });
    expect(offenders).toEqual([]);
  });

  it("writes the signature window once", () => {
    const offenders = files.filter((file) => !file.endsWith(join("signing", "rules.ts")) && /windowSeconds:\s*300\b|WINDOW_SECONDS\s*=\s*300\b/.test(readFileSync(file, "utf8")));
    expect(offenders.map((file) => relative(root, file))).toEqual([]);
  });
});
