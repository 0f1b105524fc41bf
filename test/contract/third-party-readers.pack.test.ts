// The bundles as readers we did not write see them: @apidevtools/swagger-parser (the validator
// behind orval and many other generators) accepts all three, and YAML 1.1 loaders (js-yaml's
// default schema; the `yaml` package in 1.1 mode, which resolves like PyYAML's safe_load) read
// the YAML bundles to exactly the values of the JSON bundles.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import jsYaml from "js-yaml";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { packageRoot } from "../../src/util/package-root.js";

const NAMES = ["signed", "keyed", "sandbox-control"] as const;
const bundle = (name: string, ext: "json" | "yaml") => join(packageRoot(), "generated", `${name}.openapi.${ext}`);
const jsonOf = (name: string) => JSON.parse(readFileSync(bundle(name, "json"), "utf8")) as unknown;

describe("@apidevtools/swagger-parser", () => {
  it.each(NAMES)("validates the %s bundle (JSON and YAML)", async (name) => {
    for (const ext of ["json", "yaml"] as const) {
      const api = await SwaggerParser.validate(bundle(name, ext));
      expect((api as { openapi?: string }).openapi).toBe("3.1.0");
    }
  });

  it("would reject what it rejected before: a description on a server variable", async () => {
    const spec = structuredClone(jsonOf("keyed")) as { servers: { variables?: Record<string, Record<string, unknown>> }[] };
    const index = spec.servers.findIndex((server) => server.variables?.host);
    spec.servers[index]!.variables!.host!.description = "The API host.";
    await expect(SwaggerParser.validate(spec as never)).rejects.toThrow(new RegExp(`servers/${index}/variables/host`));
  });
});

describe("YAML 1.1 loaders", () => {
  it.each(NAMES)("js-yaml's default schema reads the %s YAML bundle to the JSON bundle's values", (name) => {
    const text = readFileSync(bundle(name, "yaml"), "utf8");
    expect(jsYaml.load(text)).toEqual(jsonOf(name));
  });

  it.each(NAMES)("a YAML 1.1 core resolver (yes/no, sexagesimal, timestamps) reads the %s YAML bundle to the JSON bundle's values", (name) => {
    const text = readFileSync(bundle(name, "yaml"), "utf8");
    expect(parse(text, { version: "1.1", intAsBigInt: false })).toEqual(jsonOf(name));
  });

  it("the loaders do turn an unquoted date-time into something else (the test can fail)", () => {
    const unquoted = "createTime: 2026-11-22T10:15:30+08:00\nflag: yes\n";
    expect(jsYaml.load(unquoted)).not.toEqual({ createTime: "2026-11-22T10:15:30+08:00", flag: "yes" });
    expect(parse(unquoted, { version: "1.1" })).not.toEqual({ createTime: "2026-11-22T10:15:30+08:00", flag: "yes" });
  });

  it("date-time examples are quoted in the YAML bundles", () => {
    const text = readFileSync(bundle("signed", "yaml"), "utf8");
    expect(text).toMatch(/createTime: "2026-11-22T10:15:30\+08:00"/);
    expect(text).not.toMatch(/: 20\d\d-\d\d-\d\dT[0-9:]+\+08:00$/m);
  });
});
