// The designed marks as they reach readers of the bundles (docs/extensions.md): every keyword an
// x-designed-rules lists is there; every error-code enum says, code by code, where each comes
// from, as the registry does; digit-string ids cannot exceed the int64 maximum.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { loadBundle, type OpenApiDocument } from "../../src/contract/index.js";

const NAMES = ["signed", "keyed", "sandbox-control"] as const;
const SOURCE = new Map<number, string>([...Object.values(SignedErrors), ...Object.values(KeyedErrors)].map((e) => [e.code, e.source]));

function walk(node: unknown, visit: (node: Record<string, any>, path: string) => void, path = "#"): void {
  if (!node || typeof node !== "object") return;
  if (!Array.isArray(node)) visit(node as Record<string, any>, path);
  for (const [key, child] of Object.entries(node)) walk(child, visit, `${path}/${key}`);
}

const admitsNull = (schema: Record<string, any>) =>
  (Array.isArray(schema.type) && schema.type.includes("null")) || (Array.isArray(schema.oneOf) && schema.oneOf.some((s: any) => s?.type === "null"));

describe.each(NAMES)("the %s bundle", (name) => {
  const spec: OpenApiDocument = loadBundle(name);

  it("lists in x-designed-rules only keywords the schema has (or nullable, when it admits null)", () => {
    let marks = 0;
    walk(spec, (node, path) => {
      const rules = node["x-designed-rules"];
      if (rules === undefined) return;
      marks += 1;
      expect(Array.isArray(rules), path).toBe(true);
      for (const rule of rules as string[]) {
        if (rule === "nullable") expect(admitsNull(node), `${path}: nullable`).toBe(true);
        else expect(node, `${path}: ${rule}`).toHaveProperty([rule]);
      }
    });
    expect(marks).toBeGreaterThan(0);
  });

  it("marks every code of every error-code enum with its source, as the registry says", () => {
    let enums = 0;
    walk(spec, (node, path) => {
      if (!Array.isArray(node["x-enum-varnames"]) || node.type !== "integer" || !Array.isArray(node.enum) || !node.enum.every((c: number) => SOURCE.has(c))) return;
      if (node.enum.length === 1 && (node.enum[0] === 0 || node.enum[0] === 200)) return;
      enums += 1;
      expect(node["x-enum-sources"], path).toEqual(node.enum.map((code: number) => SOURCE.get(code)));
    });
    if (name !== "sandbox-control") expect(enums).toBeGreaterThan(1);
    else expect(enums).toBe(1);
  });
});

describe("digit-string ids", () => {
  const spec = loadBundle("signed");
  const keyed = loadBundle("keyed");
  const patterns = {
    TradeNo: spec.components.schemas.TradeNo.pattern as string,
    refundNo: spec.components.schemas.Refund.properties.refundNo.pattern as string,
    "keyed id": keyed.components.schemas.AccountMerchant.properties.id.pattern as string,
  };
  const INT64_MAX = 2n ** 63n - 1n;

  it.each(Object.entries(patterns))("%s accepts exactly the decimal integers 1 … 2^63 − 1", (_name, pattern) => {
    const re = new RegExp(pattern, "u");
    for (const edge of ["1", "9", "10", String(INT64_MAX), "1000000000000000000", "9223372036854775799"]) expect(re.test(edge), edge).toBe(true);
    for (const edge of ["0", "01", String(INT64_MAX + 1n), "9999999999999999999", "10000000000000000000", "", "-1", "1.0", "9223372036854775808"]) expect(re.test(edge), edge).toBe(false);
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 20n }), (value) => {
        expect(re.test(value.toString())).toBe(value >= 1n && value <= INT64_MAX);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 9_000_000_000_000_000_000n, max: 9_300_000_000_000_000_000n }), (value) => {
        expect(re.test(value.toString())).toBe(value <= INT64_MAX);
      }),
      { numRuns: 2000 },
    );
  });
});
