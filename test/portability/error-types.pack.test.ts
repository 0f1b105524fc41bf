// Generators that emit TypeScript enums keep every error type of the contract. Each operation's
// error envelope used to be `allOf: [ErrorEnvelope, {code: narrower enum}]`; those generators
// write that as the intersection of two enums, which tsc reduces to `never`, and the error branch
// of every 200 answer disappeared from their clients. Here both generate from the bundle and tsc
// is asked of every error type whether it is `never`; the released 1.0.0 bundle, which had the
// allOf shape, shows the question can fail.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generate } from "openapi-typescript-codegen";
import { generateApi } from "swagger-typescript-api";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";
import { generationDir, root, SIGNED_SPEC } from "./flow.js";

const dirs: { remove(): void }[] = [];
afterAll(() => {
  for (const dir of dirs) dir.remove();
});

interface ErrorTypes {
  /** Names of the error types each generator wrote. */
  checked: string[];
  /** Those tsc reduces to never. */
  never: string[];
}

/** Generates both clients from a bundle and names the error types tsc reduces to `never`. */
async function neverErrorTypes(spec: string): Promise<ErrorTypes> {
  const generated = generationDir("errtypes");
  dirs.push(generated);
  await Promise.all([
    generate({ input: spec, output: join(generated.dir, "otc"), httpClient: "fetch" }),
    generateApi({ input: spec, output: join(generated.dir, "sta"), fileName: "api.ts", silent: true }),
  ]);
  const otcNames = readdirSync(join(generated.dir, "otc", "models"))
    .filter((file) => /Error\.ts$/.test(file))
    .map((file) => file.slice(0, -".ts".length));
  const staNames = [...readFileSync(join(generated.dir, "sta", "api.ts"), "utf8").matchAll(/^export (?:type|interface) (\w+Error)\b/gm)].map((match) => match[1]!);
  const lines = [
    "type Verdict<T> = [T] extends [never] ? \"never\" : \"kept\";",
    ...otcNames.map((name) => `import type { ${name} as otc_${name} } from "./otc/models/${name}";\nexport const kept_otc_${name}: Verdict<otc_${name}> = "kept";`),
    `import type { ${staNames.map((name) => `${name} as sta_${name}`).join(", ")} } from "./sta/api";`,
    ...staNames.map((name) => `export const kept_sta_${name}: Verdict<sta_${name}> = "kept";`),
  ];
  const checkFile = join(generated.dir, "check.ts");
  writeFileSync(checkFile, lines.join("\n"));
  const program = ts.createProgram([checkFile], { strict: true, noEmit: true, skipLibCheck: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ["lib.es2022.d.ts", "lib.dom.d.ts"] });
  const source = program.getSourceFile(checkFile)!;
  const never = ts.getPreEmitDiagnostics(program, source).map((diagnostic) => {
    const line = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line;
    return /export const kept_(\w+)/.exec(source.text.split("\n")[line] ?? "")?.[1] ?? ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  });
  return { checked: [...otcNames.map((name) => `otc_${name}`), ...staNames.map((name) => `sta_${name}`)], never };
}

describe("error types in clients of openapi-typescript-codegen 0.31.0 and swagger-typescript-api 13.13.0", () => {
  it("none is never, for every operation's error envelope", async () => {
    const { checked, never } = await neverErrorTypes(SIGNED_SPEC);
    expect(never).toEqual([]);
    // Every operation's error envelope was looked at, by both generators.
    for (const prefix of ["otc_", "sta_"]) {
      expect(checked.filter((name) => name.startsWith(prefix) && /^(otc|sta)_[A-Z]\w+Error$/.test(name)).length).toBeGreaterThanOrEqual(18);
    }
    expect(checked).toContain("otc_CreateOrderError");
    expect(checked).toContain("sta_CreateOrderError");
  }, 120_000);

  it("the released 1.0.0 bundle (error envelopes as allOf) had them reduced to never: the question can fail", async () => {
    const { never } = await neverErrorTypes(join(root, "releases", "1.0.0", "signed.openapi.json"));
    expect(never).toContain("otc_CreateOrderError");
    expect(never.length).toBeGreaterThanOrEqual(18);
  }, 120_000);
});
