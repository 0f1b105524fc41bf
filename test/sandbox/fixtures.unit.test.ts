// The fixture format: the default data set fits its JSON Schema and has what the docs promise;
// loading keeps big ids exact and refuses bad data with messages that say where.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { parseJsonLossless, stringifyJson, withBigIntsAsNumbers } from "../../src/json/index.js";
import { createSandbox, defaultFixtures, defaultFixturesText, FixtureError, fixturesDir, parseFixtures } from "../../src/sandbox/index.js";

const raw = () => parseJsonLossless(defaultFixturesText()) as any;

describe("the default data set", () => {
  it("fits fixtures.schema.json (draft 2020-12)", () => {
    const schema = JSON.parse(readFileSync(join(fixturesDir(), "fixtures.schema.json"), "utf8"));
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    const ajv = new Ajv2020({ strict: true, allErrors: true, strictTypes: false });
    addFormats.default(ajv);
    const validate = ajv.compile(schema);
    expect(validate(withBigIntsAsNumbers(raw())), JSON.stringify(validate.errors)).toBe(true);
    expect(() => parseFixtures(defaultFixturesText())).not.toThrow();
  });

  it("has what the docs promise", () => {
    const fixtures = defaultFixtures();
    const statuses = fixtures.merchants.map((m) => m.accountStatus);
    expect(statuses).toContain("disabled");
    expect(statuses).toContain("cancelled");
    expect(fixtures.merchants.map((m) => m.id)).toContain(9007199254740993n);
    expect(new Set(fixtures.stores.map((s) => s.city))).toEqual(new Set(["Shanghai", "Beijing"]));
    expect(new Set(fixtures.cardTemplates.map((t) => t.cardType))).toEqual(new Set([0, 1, 2]));
    expect(fixtures.cardTemplates.some((t) => t.purchaseMode === "credit")).toBe(true);
    expect(fixtures.cardTemplates.some((t) => t.tiers.length > 0)).toBe(true);
    const demo = fixtures.apps.find((a) => a.appKey === "demo-app-key")!;
    expect(demo.merchantIds.length).toBeGreaterThan(0);
    expect(demo.merchantIds.length).toBeLessThan(fixtures.merchants.length);
    expect(demo.appSecrets.length).toBeGreaterThan(1);
    expect(fixtures.apps.some((a) => !a.permissions.includes("merchant-module"))).toBe(true);
    const key = fixtures.apiKeys.find((k) => k.apiKey === "demo-api-key")!;
    expect(new Set(key.merchants.map((m) => m.status))).toEqual(new Set(["active", "inactive", "pending"]));
  });

  it("keeps ids above 2^53 exact through the file", () => {
    expect(defaultFixturesText()).toContain("9007199254740993");
    expect(defaultFixtures().stores.map((s) => s.id)).toContain(9007199254740995n);
  });
});

describe("loading refuses bad data and says where", () => {
  const refuses = (mutate: (f: any) => void, message: RegExp) => {
    const fixtures = raw();
    mutate(fixtures);
    expect(() => parseFixtures(stringifyJson(fixtures)!, "my-fixtures.json")).toThrow(message);
    try {
      parseFixtures(stringifyJson(fixtures)!, "my-fixtures.json");
    } catch (error) {
      expect(error).toBeInstanceOf(FixtureError);
      expect((error as Error).message).toContain("my-fixtures.json");
    }
  };

  it.each([
    ["a schema violation", (f: any) => (f.stores[0].latitude = 100), /\/stores\/0\/latitude must be <= 90/],
    ["an unknown property", (f: any) => (f.merchants[0].colour = "red"), /\/merchants\/0 must NOT have additional properties \(colour\)/],
    ["a bad enum", (f: any) => (f.merchants[0].accountStatus = "closed"), /\/merchants\/0\/accountStatus must be equal to one of the allowed values/],
    ["a reference to no merchant", (f: any) => (f.stores[0].merchantId = 424242), /\/stores\/0\/merchantId: no merchant with id 424242/],
    ["a duplicate id", (f: any) => (f.stores[1].id = f.stores[0].id), /duplicate store id 20001/],
    ["tiers on a times card", (f: any) => (f.cardTemplates[1].tiers = [{ id: 1, amount: 1 }]), /only stored-value templates/],
    ["an unknown time zone", (f: any) => (f.stores[0].timezone = "Mars/Olympus"), /Mars\/Olympus/],
    ["weekdays out of order", (f: any) => ([f.stores[0].weekly[0], f.stores[0].weekly[1]] = [f.stores[0].weekly[1], f.stores[0].weekly[0]]), /dayOfWeek: must be 1/],
    ["a period closing before it opens", (f: any) => (f.stores[2].weekly[0].periods = [{ open: "12:00", close: "11:00" }]), /closes before it opens/],
    ["a customer of no app", (f: any) => (f.customers[0].appKey = "ghost"), /no app "ghost"/],
    ["an id above int64", (f: any) => (f.merchants[0].id = 2n ** 63n), /must be <= 9223372036854775807|above int64/],
  ])("%s", (_name, mutate, message) => refuses(mutate, message));

  it("refuses JSON that is not JSON", () => {
    expect(() => parseFixtures("{", "broken.json")).toThrow(/broken.json: not valid JSON/);
  });

  it("refuses a JavaScript number that already lost precision", () => {
    const fixtures = raw();
    fixtures.merchants[5].id = 9007199254740993; // already 9007199254740992 as a double
    expect(() => parseFixtures(withBigIntsAsNumbers(fixtures) as object)).toThrow(/lost precision/);
  });

  it("createSandbox refuses bad fixtures before it starts", () => {
    expect(() => createSandbox({ fixtures: "[]" })).toThrow(FixtureError);
  });
});
