// Where each operation's int64 fields are, read from the spec once per operation (src/json's
// int64FieldsOf over the bundle): the path and query parameters, the request body, and each
// answer's schema. The request step and the answer writer convert exactly these fields.
import { deref, schemasFor, type SpecName } from "../contract/index.js";
import { int64FieldsOf, type Int64Fields } from "../json/index.js";

/** An operation's int64 fields in the request. */
export interface RequestInt64Fields {
  path: readonly string[];
  query: readonly string[];
  body: Int64Fields | undefined;
}

const requestFields = new Map<string, RequestInt64Fields>();
const answerFields = new Map<string, Int64Fields | undefined>();

function fieldsAt(spec: SpecName, pointer: string | undefined): Int64Fields | undefined {
  if (pointer === undefined) return undefined;
  const schemas = schemasFor(spec);
  const document = schemas.spec;
  const node = deref(document, { $ref: `#${pointer}` });
  return int64FieldsOf(node, (given) => deref(document, given));
}

/** The int64 path and query parameters and body fields of an operation. */
export function requestInt64Fields(spec: SpecName, operationId: string): RequestInt64Fields {
  const key = `${spec} ${operationId}`;
  let found = requestFields.get(key);
  if (!found) {
    const schemas = schemasFor(spec);
    const path: string[] = [];
    const query: string[] = [];
    for (const parameter of schemas.parameters(operationId)) {
      if (parameter.schema?.format !== "int64") continue;
      if (parameter.in === "path") path.push(parameter.name);
      else if (parameter.in === "query") query.push(parameter.name);
    }
    found = { path, query, body: fieldsAt(spec, schemas.requestBodySchemaPointer(operationId)) };
    requestFields.set(key, found);
  }
  return found;
}

/** The int64 fields of an operation's answer of this status (exact, then 2XX-style, then default), as its validator picks the schema. */
export function answerInt64Fields(spec: SpecName, operationId: string, status: number): Int64Fields | undefined {
  const key = `${spec} ${operationId} ${status}`;
  if (answerFields.has(key)) return answerFields.get(key);
  const schemas = schemasFor(spec);
  const responses = schemas.operation(operationId).operation?.responses ?? {};
  const code = String(status);
  const chosen = Object.hasOwn(responses, code) ? code : Object.hasOwn(responses, `${code[0]}XX`) ? `${code[0]}XX` : Object.hasOwn(responses, "default") ? "default" : undefined;
  const fields = chosen === undefined ? undefined : fieldsAt(spec, schemas.responseSchemaPointer(operationId, chosen));
  answerFields.set(key, fields);
  return fields;
}
