// The OpenAPI 3.0.3 editions (generated/*.openapi-3.0.{json,yaml}) read by tools we did not
// write: swagger-parser validates them as 3.0, and oas-validator, a 3.0-only validator (it refuses
// the 3.1 bundles), validates them too. Both are shown to refuse a 3.1 bundle merely relabelled
// 3.0.3. Every example of the 3.1 bundles validates against the 3.0 schema at the same place under
// OpenAPI 3.0 semantics (Ajv with `nullable`), so the translation keeps valid data valid; what the
// translation loses is what docs/other-languages.md says, and one loss is shown for real.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { CONSTRUCTS, toOpenApi30 } from "../../scripts/lib/openapi-30.js";
import { packageRoot } from "../../src/util/package-root.js";

const root = packageRoot();
const require = createRequire(import.meta.url);
const oasValidator = require("oas-validator") as { validate(doc: unknown, options: Record<string, unknown>): Promise<unknown> };

type Json = Record<string, any>;
const read = (file: string) => JSON.parse(readFileSync(join(root, "generated", file), "utf8")) as Json;
const NAMES = ["signed", "keyed"] as const;
const bundles = Object.fromEntries(NAMES.map((name) => [name, read(`${name}.openapi.json`)])) as Record<(typeof NAMES)[number], Json>;
const editions = Object.fromEntries(NAMES.map((name) => [name, read(`${name}.openapi-3.0.json`)])) as Record<(typeof NAMES)[number], Json>;
const METHODS = ["get", "put", "post", "delete", "patch"];

const pointerGet = (doc: Json, pointer: string): any =>
  pointer
    .split("/")
    .slice(1)
    .reduce((node, key) => node?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], doc);
const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

/** Every example of a media type (requests, answers, webhook payloads): pointer of its schema and the value. */
function examplesOf(doc: Json): Array<{ schemaPointer: string; name: string; value: unknown }> {
  const found: Array<{ schemaPointer: string; name: string; value: unknown }> = [];
  const media = (content: Json | undefined, at: string) => {
    for (const [type, entry] of Object.entries(content ?? {})) {
      const examples = (entry as Json).examples ?? {};
      for (const [name, example] of Object.entries(examples)) found.push({ schemaPointer: `${at}/content/${escape(type)}/schema`, name: `${at} ${name}`, value: (example as Json).value });
    }
  };
  const response = (node: Json, at: string) => {
    if (node.$ref) return response(pointerGet(doc, node.$ref.slice(1)), node.$ref.slice(1));
    media(node.content, at);
  };
  for (const [group, items] of [["paths", doc.paths], ["webhooks", doc.webhooks]] as const) {
    for (const [path, item] of Object.entries((items ?? {}) as Json)) {
      for (const method of METHODS) {
        const operation = (item as Json)[method];
        if (!operation) continue;
        const at = `/${group}/${escape(path)}/${method}`;
        if (operation.requestBody) media(operation.requestBody.content, `${at}/requestBody`);
        for (const [status, answer] of Object.entries(operation.responses ?? {})) response(answer as Json, `${at}/responses/${status}`);
      }
    }
  }
  return found;
}

/** Ajv as an OpenAPI 3.0 validator reads schemas: draft-07 keywords, `nullable`, `example` ignored, formats. */
function openApi30Validator(edition: Json) {
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: "edition", components: edition.components }, "edition");
  const relocate = (node: unknown): unknown =>
    Array.isArray(node)
      ? node.map(relocate)
      : node && typeof node === "object"
        ? Object.fromEntries(Object.entries(node).map(([key, value]) => [key, key === "$ref" && typeof value === "string" ? `edition${value}` : relocate(value)]))
        : node;
  return (schema: unknown) => ajv.compile(relocate(schema) as object);
}

describe("the OpenAPI 3.0.3 editions", () => {
  it.each(NAMES)("%s: JSON and YAML hold the same 3.0.3 document", (name) => {
    const yaml = parse(readFileSync(join(root, "generated", `${name}.openapi-3.0.yaml`), "utf8"));
    expect(yaml).toEqual(editions[name]);
    expect(editions[name].openapi).toBe("3.0.3");
  });

  it.each(NAMES)("%s: swagger-parser validates it as OpenAPI 3.0", async (name) => {
    const api = (await SwaggerParser.validate(structuredClone(editions[name]) as never)) as Json;
    expect(api.openapi).toBe("3.0.3");
  });

  it.each(NAMES)("%s: oas-validator, which reads only 3.0, validates it and refuses the 3.1 bundle", async (name) => {
    await expect(oasValidator.validate(structuredClone(editions[name]), { validateSchema: "first" })).resolves.toBeDefined();
    await expect(oasValidator.validate(structuredClone(bundles[name]), { validateSchema: "first" })).rejects.toThrow(/Must be an OpenAPI 3\.0\.x document/);
  });

  it("both validators refuse a 3.1 bundle merely relabelled 3.0.3 (they can fail)", async () => {
    const relabelled = structuredClone(bundles.signed);
    relabelled.openapi = "3.0.3";
    delete relabelled.webhooks;
    delete relabelled.info.summary;
    delete relabelled.info.license?.identifier;
    await expect(oasValidator.validate(structuredClone(relabelled), { validateSchema: "first" })).rejects.toThrow(/const|null/);
    await expect(SwaggerParser.validate(structuredClone(relabelled) as never)).rejects.toThrow(/must NOT have additional properties/);
  });

  it.each(NAMES)("%s: keeps every operation, parameter and component schema", (name) => {
    const operations = (doc: Json) =>
      Object.entries(doc.paths as Json).flatMap(([path, item]) => METHODS.filter((m) => (item as Json)[m]).map((m) => `${m} ${path} ${(item as Json)[m].operationId} ${JSON.stringify((item as Json)[m].parameters ?? [])}`));
    expect(operations(editions[name])).toEqual(operations(bundles[name]));
    expect(Object.keys(editions[name].components.schemas)).toEqual(Object.keys(bundles[name].components.schemas));
    expect(editions[name].components.securitySchemes).toEqual(bundles[name].components.securitySchemes);
    expect(editions[name].servers).toEqual(bundles[name].servers);
  });

  it.each(NAMES)("%s: every example of the 3.1 bundle is valid against the 3.0 schema at the same place", (name) => {
    const compile = openApi30Validator(editions[name]);
    const examples = examplesOf(bundles[name]);
    expect(examples.length).toBeGreaterThan(name === "signed" ? 50 : 3);
    const failures: string[] = [];
    for (const example of examples) {
      // Webhooks are not in 3.0: their payloads are checked against the component schema they name.
      const pointer = example.schemaPointer.startsWith("/webhooks/") ? pointerGet(bundles[name], example.schemaPointer).$ref.slice(1) : example.schemaPointer;
      const validate = compile(pointerGet(editions[name], pointer));
      if (!validate(example.value)) failures.push(`${example.name}: ${JSON.stringify(validate.errors)}`);
    }
    expect(failures).toEqual([]);
  });

  it("says in its own description what it could not keep", () => {
    expect(editions.signed.info.description).toContain("**OpenAPI 3.0.3 edition**");
    expect(editions.signed.info.description).toMatch(/`if-then-else` \(#\/components\/schemas\/Order/);
    expect(editions.signed.info.description).toMatch(/`webhooks` \(#\/webhooks\)/);
  });

  it("loses the conditional rules, as documented: an unpaid order with a payTime passes only the 3.0 edition", () => {
    const order = {
      id: 9007199254740993,
      merchantId: 10001,
      storeId: 20001,
      totalAmount: 100,
      status: 0,
      items: [{ itemType: 1, itemId: 30001, itemName: "Latte", price: 100, quantity: 1 }],
      remark: null,
      createTime: "2026-11-22T10:15:30+08:00",
      payTime: "2026-11-22T10:16:30+08:00",
      completeTime: null,
    };
    const strict = new Ajv2020({ strict: false });
    addFormats.default(strict);
    strict.addSchema({ $id: "bundle", components: bundles.signed.components }, "bundle");
    expect(strict.validate({ $ref: "bundle#/components/schemas/Order" }, order), "the 3.1 bundle refuses it").toBe(false);
    const compile = openApi30Validator(editions.signed);
    expect(compile({ $ref: "#/components/schemas/Order" })(order), "the 3.0 edition accepts it").toBe(true);
    expect(compile({ $ref: "#/components/schemas/Order" })({ ...order, payTime: null, storeId: null }), "null where 3.1 allows it").toBe(true);
    expect(compile({ $ref: "#/components/schemas/GetOrderError" })({ code: 300001, msg: "no such order", data: {} }), "error data is null only").toBe(false);
    expect(compile({ $ref: "#/components/schemas/GetOrderError" })({ code: 300001, msg: "no such order", data: null })).toBe(true);
  });

  it("docs/other-languages.md has a row for every construct the editions translate", () => {
    const docs = readFileSync(join(root, "docs", "other-languages.md"), "utf8");
    const used = new Set(NAMES.flatMap((name) => toOpenApi30(bundles[name]).translations.map((t) => t.construct)));
    expect(used.size).toBeGreaterThan(3);
    for (const construct of Object.keys(CONSTRUCTS)) {
      expect(docs, construct).toMatch(new RegExp(`^\\| \`${construct.replace(/[.]/g, "\\.")}\``, "m"));
    }
  });
});

describe("toOpenApi30 on small documents", () => {
  const doc = (schemas: Json) => ({ openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {}, components: { schemas } });

  it("translates const, null unions, nullable enums and numeric exclusive bounds", () => {
    const { document, translations } = toOpenApi30(
      doc({
        Code: { type: "integer", const: 0 },
        Remark: { type: ["string", "null"], examples: ["a", "b"] },
        Status: { type: "integer", enum: [0, 1] },
        Record: { type: "object", properties: { from: { oneOf: [{ $ref: "#/components/schemas/Status" }, { type: "null" }], description: "before" }, amount: { type: "integer", exclusiveMinimum: 0 } } },
      }),
    );
    expect(document.components).toEqual({
      schemas: {
        Code: { type: "integer", enum: [0] },
        Remark: { type: "string", nullable: true, example: "a" },
        Status: { type: "integer", enum: [0, 1] },
        Record: { type: "object", properties: { from: { type: "integer", enum: [0, 1, null], nullable: true, description: "before" }, amount: { type: "integer", minimum: 0, exclusiveMinimum: true } } },
      },
    });
    expect(translations.map((t) => `${t.construct} ${t.pointer}`)).toEqual([
      "const /components/schemas/Code/const",
      "schema-examples /components/schemas/Remark/examples",
      "type-null-union /components/schemas/Remark/type",
      "null-branch /components/schemas/Record/properties/from/oneOf",
      "exclusive-bound /components/schemas/Record/properties/amount/exclusiveMinimum",
    ]);
  });

  it("refuses what it cannot translate faithfully, naming the place", () => {
    expect(() => toOpenApi30(doc({ Pair: { type: "array", prefixItems: [{ type: "string" }] } }))).toThrow('/components/schemas/Pair: schema keyword "prefixItems" has no OpenAPI 3.0 translation');
    expect(() => toOpenApi30(doc({ Box: { type: "object" }, Maybe: { oneOf: [{ $ref: "#/components/schemas/Box" }, { type: "null" }] } }))).toThrow(/Maybe\/oneOf: null or #\/components\/schemas\/Box \(not a primitive\)/);
    expect(() => toOpenApi30(doc({ Many: { type: ["string", "integer"] } }))).toThrow(/Many: type \["string","integer"\] has no OpenAPI 3\.0 form/);
    expect(() => toOpenApi30({ openapi: "3.0.3", info: {}, paths: {} })).toThrow(/expected an OpenAPI 3\.1 document/);
  });
});
