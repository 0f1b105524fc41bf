// DESIGN item 12: info.version of every spec is the package version (semver).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { compareSemver, listReleases, parseSemver } from "../../scripts/lib/breaking/index.js";
import { packageRoot, packageVersion } from "../../src/util/package-root.js";

const root = packageRoot();
const version = packageVersion();
const specNames = readdirSync(join(root, "openapi"), { withFileTypes: true })
  .filter((e) => e.isDirectory() && existsSync(join(root, "openapi", e.name, "openapi.yaml")))
  .map((e) => e.name);

describe("info.version is the package version", () => {
  it("package.json has a semantic version", () => {
    expect(parseSemver(version)).toBeDefined();
  });

  it.each(specNames)("openapi/%s/openapi.yaml", (name) => {
    const spec = parse(readFileSync(join(root, "openapi", name, "openapi.yaml"), "utf8")) as { info: { version: string } };
    expect(spec.info.version).toBe(version);
  });

  it.each(specNames.filter((name) => existsSync(join(root, "generated", `${name}.openapi.json`))))("generated/%s.openapi.json", (name) => {
    const spec = JSON.parse(readFileSync(join(root, "generated", `${name}.openapi.json`), "utf8")) as { info: { version: string } };
    expect(spec.info.version).toBe(version);
  });
});

describe("releases/", () => {
  const releases = listReleases(join(root, "releases"));

  it("holds at least the first release, none newer than the package", () => {
    expect(releases.length).toBeGreaterThan(0);
    expect(compareSemver(releases.at(-1)!, version)).toBeLessThanOrEqual(0);
  });

  it.each(releases)("%s holds the signed and keyed bundles of that version", (release) => {
    for (const name of ["signed", "keyed"]) {
      const spec = JSON.parse(readFileSync(join(root, "releases", release, `${name}.openapi.json`), "utf8")) as { info: { version: string } };
      expect(spec.info.version).toBe(release);
    }
  });
});
