// Each fixture is base.yaml with one change (named in its first line); the checker must give
// exactly the expected verdict for it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compareDocuments, type Finding } from "../../scripts/lib/breaking/index.js";

const fixtures = join(import.meta.dirname, "fixtures");
const load = (name: string) => parse(readFileSync(join(fixtures, `${name}.yaml`), "utf8")) as Record<string, unknown>;
const base = load("base");

function verdict(name: string) {
  const findings = compareDocuments(base, load(name));
  const rules = (level: Finding["level"]) => findings.filter((f) => f.level === level).map((f) => f.rule).sort();
  return { breaking: rules("breaking"), warning: rules("warning"), info: rules("info"), findings };
}

describe("breaking changes are reported", () => {
  it.each([
    ["operation-removed", ["operation-removed"]],
    ["callback-removed", ["callback-removed"]],
    ["operation-id-changed", ["operation-id-changed"]],
    ["response-field-removed", ["response-field-removed"]],
    ["response-field-optional", ["response-field-optional"]],
    ["response-nullable", ["response-branch-added"]],
    ["request-field-removed", ["request-field-removed"]],
    ["request-field-required", ["request-field-required"]],
    ["parameter-required", ["parameter-required"]],
    ["request-enum-narrowed", ["request-enum-narrowed"]],
    ["type-changed", ["type-changed"]],
    ["request-max-lowered", ["request-limit-tightened"]],
    ["request-min-raised", ["request-limit-tightened"]],
    ["request-max-added", ["request-limit-tightened"]],
    ["callback-header-removed", ["callback-header-removed"]],
    // The callback payload is written by the platform: for the app it is a response.
    ["callback-payload-field-removed", ["response-field-removed"]],
  ])("%s", (name, expected) => {
    const result = verdict(name);
    expect(result.breaking, JSON.stringify(result.findings, null, 2)).toEqual(expected);
    expect(result.warning).toEqual([]);
  });

  it("names the place and the change", () => {
    const [finding] = verdict("request-max-lowered").findings;
    expect(finding).toEqual({
      level: "breaking",
      rule: "request-limit-tightened",
      where: "POST /items request body (application/json): name",
      message: "request limit tightened: maxLength 64 → 32",
    });
  });
});

describe("changes strict clients may notice are warnings", () => {
  it.each([
    ["response-enum-widened", ["response-enum-widened"]],
    ["response-enum-value-removed", ["response-enum-value-removed"]],
  ])("%s", (name, expected) => {
    const result = verdict(name);
    expect(result.breaking).toEqual([]);
    expect(result.warning).toEqual(expected);
  });
});

describe("compatible changes pass", () => {
  it.each([
    ["added-optional-fields", []],
    ["added-operation", ["operation-added"]],
    ["relaxed-limits", []],
    ["request-enum-widened", []],
    ["path-parameter-renamed", []],
  ])("%s", (name, info) => {
    const result = verdict(name);
    expect(result.findings.filter((f) => f.level !== "info")).toEqual([]);
    expect(result.info).toEqual(info);
  });

  it("a document compared with itself has no findings", () => {
    expect(compareDocuments(base, base)).toEqual([]);
  });
});
