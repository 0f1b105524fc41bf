// The release gate: generated bundles against releases/<version>/, judged by the version policy.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { checkBreaking, formatReport, listReleases } from "../../scripts/lib/breaking/index.js";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
const fixture = (name: string) => parse(readFileSync(join(import.meta.dirname, "fixtures", `${name}.yaml`), "utf8")) as Record<string, any>;

describe("the current contract against the stored release", () => {
  it("has no breaking change, or only ones the major version allows", () => {
    const result = checkBreaking({ root });
    expect(result.release).toBe(listReleases(join(root, "releases")).at(-1));
    expect(result.problems).toEqual([]);
    if (result.breaking.length > 0) expect(result.allowedByMajor, formatReport(result)).toBe(true);
    expect(result.ok).toBe(true);
  });

  it("npm run check:breaking exits 0", () => {
    const tsx = join(createRequire(import.meta.url).resolve("tsx/package.json"), "..", "dist", "cli.mjs");
    const output = execFileSync(process.execPath, [tsx, join(root, "scripts", "check-breaking.ts")], { cwd: root, encoding: "utf8" });
    expect(output).toContain("check:breaking passed.");
  });
});

describe("the version policy", () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** A package root with one released and one generated bundle of the fixture API. */
  function project(version: string, released: Record<string, any>, generated: Record<string, any> | undefined, releaseVersion = "1.0.0"): string {
    const dir = mkdtempSync(join(tmpdir(), "mop-breaking-"));
    dirs.push(dir);
    mkdirSync(join(dir, "generated"));
    mkdirSync(join(dir, "releases", releaseVersion), { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "fixture", version }));
    writeFileSync(join(dir, "releases", releaseVersion, "api.openapi.json"), JSON.stringify(released));
    if (generated) writeFileSync(join(dir, "generated", "api.openapi.json"), JSON.stringify({ ...generated, info: { ...generated.info, version } }));
    return dir;
  }

  it("fails a breaking change within the same major version, listing it", () => {
    const result = checkBreaking({ root: project("1.1.0", fixture("base"), fixture("request-field-removed")) });
    expect(result.ok).toBe(false);
    expect(result.breaking.map((f) => f.rule)).toEqual(["request-field-removed"]);
    expect(formatReport(result)).toMatch(/✗ \[request-field-removed\] POST \/items request body \(application\/json\): note/);
  });

  it("allows it once the major version moved", () => {
    const result = checkBreaking({ root: project("2.0.0", fixture("base"), fixture("request-field-removed")) });
    expect(result.allowedByMajor).toBe(true);
    expect(result.ok).toBe(true);
  });

  it("passes a compatible change in a minor version", () => {
    expect(checkBreaking({ root: project("1.1.0", fixture("base"), fixture("added-operation")) }).ok).toBe(true);
  });

  it("fails when a released API is no longer generated", () => {
    const result = checkBreaking({ root: project("1.0.1", fixture("base"), undefined) });
    expect(result.breaking.map((f) => f.rule)).toEqual(["document-removed"]);
    expect(result.ok).toBe(false);
  });

  it("fails when the package version is older than the release", () => {
    const result = checkBreaking({ root: project("0.9.0", fixture("base"), fixture("base")) });
    expect(result.problems).toEqual(["package.json version 0.9.0 is older than the release 1.0.0"]);
    expect(result.ok).toBe(false);
  });

  it("fails when a bundle's info.version is not the package version", () => {
    const dir = project("1.0.0", fixture("base"), fixture("base"));
    const file = join(dir, "generated", "api.openapi.json");
    writeFileSync(file, JSON.stringify({ ...fixture("base"), info: { title: "x", version: "1.0.1" } }));
    expect(checkBreaking({ root: dir }).problems).toEqual(["generated/api.openapi.json: info.version is 1.0.1, package.json says 1.0.0"]);
  });

  it("orders releases by semantic version, not by name", () => {
    const dir = project("10.0.0", fixture("base"), fixture("base"), "9.0.0");
    mkdirSync(join(dir, "releases", "10.0.0"));
    mkdirSync(join(dir, "releases", "not-a-version"));
    expect(listReleases(join(dir, "releases"))).toEqual(["9.0.0", "10.0.0"]);
  });
});
