// The OpenAPI 3.0.3 edition of a bundled 3.1 spec, for tools that read only 3.0 (AutoRest,
// Perl's OpenAPI::Client, many generators). Every 3.1-only construct is translated where 3.0 can
// say the same thing and dropped where it cannot; each step is recorded as a Translation, so the
// edition can say what it lost and the docs can be checked against what was done. A keyword this
// file does not know stops the generation: nothing 3.1-only slips into a 3.0 document unseen.
type Json = unknown;
type JsonObject = Record<string, Json>;

/** What was translated or dropped, at which JSON pointer of the 3.1 bundle. */
export interface Translation {
  pointer: string;
  construct: Construct;
}

/**
 * The constructs handled. docs/other-languages.md has one row per construct saying what the 3.0
 * form is and what is lost; a test checks that every construct met in the bundles has its row.
 */
export const CONSTRUCTS = {
  const: "`enum` with the one value; nothing lost",
  "type-null-union": "`type` with `nullable: true` (a `null` added to an `enum`); nothing lost",
  "null-branch": "the other branch made `nullable: true` (a reference to a primitive schema is inlined, so the name of that schema is lost there)",
  "type-null": "`type: object`, `nullable: true`, `enum: [null]`: only null is valid, as before",
  "if-then-else": "dropped: the conditional rule (which fields are null in which status) is stated only in the description",
  "unevaluatedProperties": "dropped: `true` is a no-op; `false` would leave the object open",
  "schema-examples": "`example` with the first value; the others are lost",
  "exclusive-bound": "`minimum`/`maximum` with `exclusiveMinimum`/`exclusiveMaximum: true`; nothing lost",
  webhooks: "dropped: the payload schemas stay in `components.schemas`; the callback headers and responses are in docs/callbacks.md",
  "info.summary": "dropped (3.0 has no `info.summary`; the description stays)",
  "license.identifier": "dropped (3.0 has no SPDX `identifier`; the license name stays)",
  "reference-siblings": "dropped: a 3.0 Reference Object outside a schema has no `summary` or `description`",
} as const;
export type Construct = keyof typeof CONSTRUCTS;

export interface Edition30 {
  document: JsonObject;
  translations: Translation[];
}

const OPERATION_KEYS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const PRIMITIVE_TYPES = new Set(["string", "integer", "number", "boolean"]);
/** Schema keywords of OpenAPI 3.0.3 (plus x- extensions). */
const SCHEMA_30 = new Set([
  "$ref", "title", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength",
  "pattern", "maxItems", "minItems", "uniqueItems", "maxProperties", "minProperties", "required", "enum", "type", "allOf",
  "oneOf", "anyOf", "not", "items", "properties", "additionalProperties", "description", "format", "default", "nullable",
  "discriminator", "readOnly", "writeOnly", "xml", "externalDocs", "example", "deprecated",
]);

const isObject = (value: Json): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const escape = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");
const child = (pointer: string, ...keys: Array<string | number>) => pointer + keys.map((key) => `/${escape(String(key))}`).join("");

/** Translates a bundled OpenAPI 3.1 document (single file, local `$ref`s only). */
export function toOpenApi30(source: JsonObject): Edition30 {
  if (typeof source.openapi !== "string" || !source.openapi.startsWith("3.1.")) throw new Error(`expected an OpenAPI 3.1 document, got openapi ${String(source.openapi)}`);
  const translations: Translation[] = [];
  const note = (pointer: string, construct: Construct) => translations.push({ pointer, construct });
  const schemas = isObject(source.components) && isObject(source.components.schemas) ? source.components.schemas : {};

  const schema = (node: Json, pointer: string): Json => {
    if (typeof node === "boolean") {
      // true/false schemas exist in 3.1 and in additionalProperties in 3.0 only.
      throw new Error(`${pointer}: a boolean schema has no OpenAPI 3.0 form`);
    }
    if (!isObject(node)) throw new Error(`${pointer}: not a schema`);
    const out: JsonObject = {};
    for (const [key, value] of Object.entries(node)) {
      const at = child(pointer, key);
      switch (key) {
        case "properties":
          out.properties = Object.fromEntries(Object.entries(value as JsonObject).map(([name, sub]) => [name, schema(sub, child(at, name))]));
          break;
        case "additionalProperties":
          out.additionalProperties = typeof value === "boolean" ? value : schema(value, at);
          break;
        case "items":
          out.items = schema(value, at);
          break;
        case "not":
          out.not = schema(value, at);
          break;
        case "allOf":
        case "anyOf":
        case "oneOf":
          out[key] = (value as Json[]).map((sub, index) => schema(sub, child(at, index)));
          break;
        case "const":
          note(at, "const");
          out.enum = [value];
          break;
        case "examples":
          note(at, "schema-examples");
          if (Array.isArray(value) && value.length > 0 && !("example" in node)) out.example = value[0];
          break;
        case "if":
        case "then":
        case "else":
          if (key === "if") note(pointer, "if-then-else");
          break;
        case "unevaluatedProperties":
          note(at, "unevaluatedProperties");
          break;
        case "exclusiveMinimum":
        case "exclusiveMaximum":
          if (typeof value === "number") {
            note(at, "exclusive-bound");
            out[key === "exclusiveMinimum" ? "minimum" : "maximum"] = value;
            out[key] = true;
          } else out[key] = value;
          break;
        default:
          out[key] = value;
      }
    }
    return nullable(out, pointer);
  };

  /** 3.1's ways of admitting null, in their 3.0 form. */
  const nullable = (node: JsonObject, pointer: string): JsonObject => {
    if (Array.isArray(node.type)) {
      const types = node.type.filter((type) => type !== "null");
      if (types.length !== 1) throw new Error(`${pointer}: type ${JSON.stringify(node.type)} has no OpenAPI 3.0 form`);
      const { type: _type, ...rest } = node;
      if (types.length === node.type.length) return { ...rest, type: types[0] };
      note(child(pointer, "type"), "type-null-union");
      return withNull({ ...rest, type: types[0] });
    }
    if (node.type === "null") {
      note(child(pointer, "type"), "type-null");
      const { type: _type, ...rest } = node;
      // 3.0 has no null type; validators built on Ajv refuse `nullable` without a `type`.
      return { ...rest, type: "object", nullable: true, enum: [null] };
    }
    for (const key of ["oneOf", "anyOf"] as const) {
      const branches = node[key];
      if (!Array.isArray(branches)) continue;
      const isNull = (branch: Json) => isObject(branch) && branch.nullable === true && Array.isArray(branch.enum) && branch.enum.length === 1 && branch.enum[0] === null;
      const others = branches.filter((branch) => !isNull(branch));
      if (others.length === branches.length) continue;
      if (others.length !== 1) throw new Error(`${pointer}/${key}: a null branch beside ${others.length} others has no OpenAPI 3.0 form`);
      // The null branch's own translation (type-null) is replaced by this one.
      const nullAt = child(pointer, key, branches.findIndex(isNull));
      translations.splice(0, translations.length, ...translations.filter((t) => t.pointer !== nullAt && !t.pointer.startsWith(`${nullAt}/`)));
      note(child(pointer, key), "null-branch");
      const { [key]: _branches, ...siblings } = node;
      const [other] = others as [JsonObject];
      if (typeof other.$ref === "string") {
        const target = referencedSchema(other.$ref, pointer);
        if (typeof target.type === "string" && PRIMITIVE_TYPES.has(target.type)) {
          const { title: _title, ...inlined } = schema(target, other.$ref.slice(1)) as JsonObject;
          return withNull({ ...inlined, ...siblings });
        }
        // 3.0 has no faithful form: `allOf` + `nullable` still refuses null in a validator.
        throw new Error(`${pointer}/${key}: null or ${other.$ref} (not a primitive) has no faithful OpenAPI 3.0 form; inline it or choose a translation here`);
      }
      return withNull({ ...other, ...siblings });
    }
    return node;
  };

  const referencedSchema = (ref: string, pointer: string): JsonObject => {
    const match = /^#\/components\/schemas\/([^/]+)$/.exec(ref);
    const target = match ? schemas[match[1]!.replace(/~1/g, "/").replace(/~0/g, "~")] : undefined;
    if (!isObject(target)) throw new Error(`${pointer}: cannot resolve ${ref}`);
    return target;
  };

  const reference = (node: JsonObject, pointer: string): JsonObject => {
    if (Object.keys(node).length > 1) note(pointer, "reference-siblings");
    return { $ref: node.$ref };
  };

  const mediaTypes = (content: Json, pointer: string): JsonObject =>
    Object.fromEntries(
      Object.entries(content as JsonObject).map(([type, media]) => {
        const at = child(pointer, type);
        const out: JsonObject = { ...(media as JsonObject) };
        if ("schema" in out) out.schema = schema(out.schema, child(at, "schema"));
        if (isObject(out.encoding)) {
          out.encoding = Object.fromEntries(
            Object.entries(out.encoding).map(([name, encoding]) => {
              const e = { ...(encoding as JsonObject) };
              if (isObject(e.headers)) e.headers = mapValues(e.headers, child(at, "encoding", name, "headers"), parameter);
              return [name, e];
            }),
          );
        }
        return [type, out];
      }),
    );

  /** A parameter or a header (the same shape, without name and in). */
  const parameter = (node: JsonObject, pointer: string): JsonObject => {
    if (typeof node.$ref === "string") return reference(node, pointer);
    const out = { ...node };
    if ("schema" in out) out.schema = schema(out.schema, child(pointer, "schema"));
    if ("content" in out) out.content = mediaTypes(out.content, child(pointer, "content"));
    return out;
  };

  const requestBody = (node: JsonObject, pointer: string): JsonObject => {
    if (typeof node.$ref === "string") return reference(node, pointer);
    return { ...node, ...(node.content ? { content: mediaTypes(node.content, child(pointer, "content")) } : {}) };
  };

  const response = (node: JsonObject, pointer: string): JsonObject => {
    if (typeof node.$ref === "string") return reference(node, pointer);
    const out = { ...node };
    if (isObject(out.headers)) out.headers = mapValues(out.headers, child(pointer, "headers"), parameter);
    if (isObject(out.content)) out.content = mediaTypes(out.content, child(pointer, "content"));
    if (isObject(out.links)) out.links = mapValues(out.links, child(pointer, "links"), (link, at) => (typeof link.$ref === "string" ? reference(link, at) : link));
    return out;
  };

  const operation = (node: JsonObject, pointer: string): JsonObject => {
    const out = { ...node };
    if (Array.isArray(out.parameters)) out.parameters = out.parameters.map((p, index) => parameter(p as JsonObject, child(pointer, "parameters", index)));
    if (isObject(out.requestBody)) out.requestBody = requestBody(out.requestBody, child(pointer, "requestBody"));
    if (isObject(out.responses)) out.responses = mapValues(out.responses, child(pointer, "responses"), response);
    if (isObject(out.callbacks)) {
      out.callbacks = mapValues(out.callbacks, child(pointer, "callbacks"), (callback, at) =>
        typeof callback.$ref === "string" ? reference(callback, at) : mapValues(callback, at, pathItem),
      );
    }
    return out;
  };

  const pathItem = (node: JsonObject, pointer: string): JsonObject => {
    if (typeof node.$ref === "string") throw new Error(`${pointer}: a referenced path item has no OpenAPI 3.0 form here`);
    const out = { ...node };
    if (Array.isArray(out.parameters)) out.parameters = out.parameters.map((p, index) => parameter(p as JsonObject, child(pointer, "parameters", index)));
    for (const method of OPERATION_KEYS) if (isObject(out[method])) out[method] = operation(out[method] as JsonObject, child(pointer, method));
    return out;
  };

  const document: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    switch (key) {
      case "openapi":
        document.openapi = "3.0.3";
        break;
      case "info": {
        const { summary, license, ...info } = value as JsonObject;
        if (summary !== undefined) note("/info/summary", "info.summary");
        if (isObject(license)) {
          const { identifier, ...rest } = license;
          if (identifier !== undefined) note("/info/license/identifier", "license.identifier");
          document.info = { ...info, license: rest };
        } else document.info = info;
        break;
      }
      case "jsonSchemaDialect":
        throw new Error("jsonSchemaDialect has no OpenAPI 3.0 form");
      case "webhooks":
        note("/webhooks", "webhooks");
        break;
      case "paths":
        document.paths = mapValues(value as JsonObject, "/paths", pathItem);
        break;
      case "components":
        document.components = components(value as JsonObject);
        break;
      default:
        document[key] = value;
    }
  }

  function components(node: JsonObject): JsonObject {
    const out: JsonObject = {};
    for (const [kind, entries] of Object.entries(node)) {
      const at = child("/components", kind);
      const map = entries as JsonObject;
      switch (kind) {
        case "schemas":
          out.schemas = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, schema(sub, child(at, name))]));
          break;
        case "parameters":
        case "headers":
          out[kind] = mapValues(map, at, parameter);
          break;
        case "responses":
          out.responses = mapValues(map, at, response);
          break;
        case "requestBodies":
          out.requestBodies = mapValues(map, at, requestBody);
          break;
        case "securitySchemes":
          for (const [name, scheme] of Object.entries(map)) {
            if ((scheme as JsonObject).type === "mutualTLS") throw new Error(`${child(at, name)}: mutualTLS has no OpenAPI 3.0 form`);
          }
          out.securitySchemes = map;
          break;
        case "examples":
        case "links":
        case "callbacks":
          out[kind] = map;
          break;
        default:
          throw new Error(`${at}: components.${kind} has no OpenAPI 3.0 form`);
      }
    }
    return out;
  }

  assertSchemas30(document, "");
  const seen = new Set<string>();
  const unique = translations.filter((t) => !seen.has(`${t.pointer} ${t.construct}`) && seen.add(`${t.pointer} ${t.construct}`));
  if (isObject(document.info)) {
    const description = typeof document.info.description === "string" ? document.info.description.trimEnd() + "\n\n" : "";
    document.info = { ...document.info, description: description + editionNote(unique) };
  }
  return { document, translations: unique };
}

/** The paragraph the 3.0 edition carries about itself: where it comes from and what 3.0 could not say. */
export function editionNote(translations: readonly Translation[]): string {
  const byConstruct = new Map<Construct, string[]>();
  for (const { construct, pointer } of translations) byConstruct.set(construct, [...(byConstruct.get(construct) ?? []), pointer]);
  const lines = [...byConstruct].map(([construct, pointers]) => {
    const where = pointers.length <= 3 ? pointers.map((p) => `#${p}`).join(", ") : `${pointers.length} places`;
    return `- \`${construct}\` (${where}): ${CONSTRUCTS[construct]}`;
  });
  return [
    "**OpenAPI 3.0.3 edition**, generated from the OpenAPI 3.1 bundle for tools that read only 3.0. The 3.1",
    "bundle is the contract; what 3.0 cannot say was translated or dropped (docs/other-languages.md):",
    "",
    ...lines,
    "",
  ].join("\n");
}

/** `nullable: true`, and null among the values of an enum (3.0.3: nullable does not extend an enum). */
function withNull(node: JsonObject): JsonObject {
  const out: JsonObject = { ...node, nullable: true };
  if (Array.isArray(node.enum) && !node.enum.includes(null)) out.enum = [...node.enum, null];
  return out;
}

function mapValues(node: JsonObject, pointer: string, each: (value: JsonObject, pointer: string) => JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, each(value as JsonObject, child(pointer, key))]));
}

/** Every schema left uses only 3.0 keywords: a 3.1 keyword this file does not translate stops here. */
function assertSchemas30(node: Json, pointer: string, inSchema = false): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => assertSchemas30(item, child(pointer, index), inSchema));
    return;
  }
  if (!isObject(node)) return;
  for (const [key, value] of Object.entries(node)) {
    const at = child(pointer, key);
    if (inSchema) {
      if (!key.startsWith("x-") && !SCHEMA_30.has(key)) throw new Error(`${pointer}: schema keyword "${key}" has no OpenAPI 3.0 translation`);
      if (key === "properties") {
        for (const [name, sub] of Object.entries(value as JsonObject)) assertSchemas30(sub, child(at, name), true);
      } else if (["items", "not", "additionalProperties"].includes(key)) assertSchemas30(value, at, isObject(value));
      else if (["allOf", "anyOf", "oneOf"].includes(key)) assertSchemas30(value, at, true);
      continue;
    }
    if (key === "example" || key === "examples" || key.startsWith("x-")) continue;
    if (key === "schema") assertSchemas30(value, at, true);
    else if (key === "schemas" && pointer === "/components") {
      for (const [name, sub] of Object.entries(value as JsonObject)) assertSchemas30(sub, child(at, name), true);
    } else assertSchemas30(value, at, false);
  }
}
