// Where the package is installed, found from the module's own location (src/ in tests, dist/src/
// when built): the folder whose package.json names this package.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { packageRoot, packageVersion } from "../../src/util/package-root.js";

describe("packageRoot", () => {
  it("finds the folder whose package.json is this package's, and its version", () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { name: string; version: string };
    expect(manifest.name).toBe("merchant-open-platform");
    expect(packageVersion()).toBe(manifest.version);
    expect(readFileSync(join(packageRoot(), "generated", "signed.openapi.json"), "utf8").length).toBeGreaterThan(1000);
  });
});
