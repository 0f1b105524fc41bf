// Spectral (a linter we did not write) over the bundles with .spectral.yaml: spectral:oas and
// the OWASP API Security ruleset report nothing, the rules that matter can fail, and every rule
// switched off says why.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
const spectralBin = join(createRequire(import.meta.url).resolve("@stoplight/spectral-cli/package.json"), "..", "dist", "index.js");
const run = promisify(execFile);

interface Finding {
  code: string;
  path: string[];
  severity: number;
  source: string;
}

async function spectral(files: string[]): Promise<{ exitCode: number; findings: Finding[] }> {
  const args = [spectralBin, "lint", "--ruleset", join(root, ".spectral.yaml"), "--format", "json", "--fail-severity", "hint", "--quiet", ...files];
  try {
    const { stdout } = await run(process.execPath, args, { cwd: root, maxBuffer: 64 * 1024 * 1024 });
    return { exitCode: 0, findings: parseFindings(stdout) };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { exitCode: failed.code ?? -1, findings: parseFindings(failed.stdout ?? "") };
  }
}

function parseFindings(stdout: string): Finding[] {
  const start = stdout.indexOf("[");
  const end = stdout.lastIndexOf("]");
  return start < 0 ? [] : (JSON.parse(stdout.slice(start, end + 1)) as Finding[]);
}

const bundles = ["signed", "keyed", "sandbox-control"].map((name) => join(root, "generated", `${name}.openapi.json`));
const dir = mkdtempSync(join(tmpdir(), "mop-spectral-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Spectral with .spectral.yaml", () => {
  it("reports no error, warning, information or hint on the three bundles", async () => {
    const { exitCode, findings } = await spectral(bundles);
    expect(findings.map((f) => `${f.code} ${f.path.join(".")}`)).toEqual([]);
    expect(exitCode).toBe(0);
  }, 120_000);

  it("catches what the rules that matter are for, in a spec that breaks them", async () => {
    const spec = JSON.parse(readFileSync(bundles[1]!, "utf8"));
    const schemas = spec.components.schemas;
    delete schemas.AccountMerchantListEnvelope.properties.data.properties.merchants.maxItems; // array limit
    delete schemas.AccountMerchantListEnvelope.properties.code.format; // integer format
    spec.components.responses.TooManyRequests.headers = { "X-Wait": { schema: { type: "integer", format: "int32" } } }; // Retry-After on 429
    spec.components.parameters.StatusQuery.schema = { type: "string", description: "free text" }; // input string limit
    const broken = join(dir, "broken.openapi.json");
    writeFileSync(broken, JSON.stringify(spec));
    const signed = JSON.parse(readFileSync(bundles[0]!, "utf8"));
    delete signed.paths["/merchants"].get.responses["429"]; // a 429 response at all
    delete signed.components.responses.TooManyRequests.headers; // a 429 without headers
    const brokenSigned = join(dir, "broken-signed.openapi.json");
    writeFileSync(brokenSigned, JSON.stringify(signed));
    const { exitCode, findings } = await spectral([broken, brokenSigned]);
    expect(exitCode).not.toBe(0);
    const codes = new Set(findings.map((f) => f.code));
    for (const code of ["owasp:api4:2023-array-limit", "owasp:api4:2023-integer-format", "owasp:api4:2023-rate-limit-retry-after", "contract-input-string-limit", "owasp:api4:2023-rate-limit-responses-429", "contract-429-retry-after"]) {
      expect(codes, code).toContain(code);
    }
  }, 120_000);

  it("says why for every rule it switches off", () => {
    const lines = readFileSync(join(root, ".spectral.yaml"), "utf8").split("\n");
    const off = lines.map((line, index) => ({ line, index })).filter(({ line }) => /:\s*off\s*$/.test(line));
    expect(off.length).toBeGreaterThan(0);
    for (const { line, index } of off) {
      let above = index - 1;
      while (above >= 0 && /:\s*off\s*$/.test(lines[above]!)) above -= 1;
      expect(lines[above]?.trim().startsWith("#"), `no reason above "${line.trim()}"`).toBe(true);
    }
  });
});
