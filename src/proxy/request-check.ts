// Checks one request against the spec: path and query parameters, body, and (when the proxy
// knows the app's secrets) the signature. Every schema is found by following the spec's own
// $refs, so parameters and bodies defined as components are checked like inline ones.
import { parseJsonLossless } from "../json/index.js";
import { verifySignedRequest, type NonceStore, SIGNATURE_HEADERS } from "../signing/index.js";
import { atPointer, type SpecDocument, type SpecSchemas } from "../conformance/spec.js";
import { oversizeArrays } from "./array-limits.js";
import type { RouteMatch } from "./routes.js";

export interface IncomingRequestShape {
  method: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Most problems listed for one request or answer; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20;

/** At most `limit` problems, the rest summed up in one last line. */
export function capProblems(problems: string[], limit = MAX_LISTED_PROBLEMS): string[] {
  return problems.length <= limit ? problems : [...problems.slice(0, limit), `and ${problems.length - limit} more`];
}

/** Follows $refs from a pointer to the node they end at; the pointer is that node's. */
function resolvePointer(spec: SpecDocument, pointer: string): { pointer: string; node: any } {
  let node = atPointer(spec, pointer);
  for (let hops = 0; node && typeof node.$ref === "string" && node.$ref.startsWith("#") && hops < 32; hops++) {
    pointer = node.$ref.slice(1);
    node = atPointer(spec, pointer);
  }
  return { pointer, node };
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schemaPointer: string;
  schema: any;
}

const parameterCache = new WeakMap<SpecDocument, Map<string, Parameter[]>>();

/** Path-item and operation parameters (the operation's win), each with its schema's pointer; read once per operation. */
function parametersOf(spec: SpecDocument, operationPointer: string): Parameter[] {
  let perSpec = parameterCache.get(spec);
  if (!perSpec) parameterCache.set(spec, (perSpec = new Map()));
  let found = perSpec.get(operationPointer);
  if (!found) perSpec.set(operationPointer, (found = readParameters(spec, operationPointer)));
  return found;
}

function readParameters(spec: SpecDocument, operationPointer: string): Parameter[] {
  const byKey = new Map<string, Parameter>();
  const pathItemPointer = operationPointer.slice(0, operationPointer.lastIndexOf("/"));
  for (const owner of [pathItemPointer, operationPointer]) {
    const list = atPointer(spec, `${owner}/parameters`);
    if (!Array.isArray(list)) continue;
    list.forEach((_entry, index) => {
      const { pointer, node } = resolvePointer(spec, `${owner}/parameters/${index}`);
      if (!node || typeof node.name !== "string") return;
      const schema = resolvePointer(spec, `${pointer}/schema`);
      byKey.set(`${node.in}:${node.name}`, { name: node.name, in: node.in, required: node.required, schemaPointer: schema.pointer, schema: schema.node });
    });
  }
  return [...byKey.values()];
}

/** Turns query text into the type the parameter schema asks for, so it can be validated. */
function coerce(schema: any, text: string): unknown {
  const type = Array.isArray(schema?.type) ? schema.type.find((t: unknown) => t !== "null") : schema?.type;
  if ((type === "integer" || type === "number") && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    return /^-?\d+$/.test(text) && !Number.isSafeInteger(Number(text)) ? BigInt(text) : Number(text);
  }
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

const withoutRoot = (error: string) => error.replace(/^\(root\)/, "");

export function checkRequestShape(schemas: SpecSchemas, match: RouteMatch, request: IncomingRequestShape): string[] {
  const problems: string[] = [];
  const operation = schemas.operation(match.operationId);
  const params = parametersOf(schemas.spec, operation.pointer);
  for (const name of match.undecodable) problems.push(`path parameter ${name} is not valid percent-encoding`);
  for (const param of params) {
    if (param.in !== "query" && param.in !== "path") continue;
    if (param.in === "path" && match.undecodable.includes(param.name)) continue;
    const raw = param.in === "path" ? match.pathParams[param.name] : (request.query.get(param.name) ?? undefined);
    if (raw === undefined) {
      if (param.required) problems.push(`${param.in} parameter ${param.name} is required`);
      continue;
    }
    for (const error of schemas.validate(param.schemaPointer, coerce(param.schema, raw))) problems.push(`${param.in}.${param.name}${withoutRoot(error)}`);
  }
  for (const param of params) {
    const given = param.in === "query" ? request.query.getAll(param.name).length : 0;
    if (given > 1 && param.schema?.type !== "array") problems.push(`query parameter ${param.name} is given ${given} times; it takes one value`);
  }
  const declared = new Set(params.filter((p) => p.in === "query").map((p) => p.name));
  for (const name of new Set(request.query.keys())) if (!declared.has(name)) problems.push(`query parameter ${name} is not in the spec`);
  problems.push(...checkBody(schemas, operation.pointer, request));
  return problems;
}

function checkBody(schemas: SchemasLike, operationPointer: string, request: IncomingRequestShape): string[] {
  const { pointer: requestBodyPointer, node: requestBody } = resolvePointer(schemas.spec, `${operationPointer}/requestBody`);
  if (request.body.length === 0 && !requestBody?.required) return [];
  if (!requestBody) return ["the operation takes no body"];
  if (request.body.length === 0) return ["the body is required"];
  const problems: string[] = [];
  const contentType = String(request.headers["content-type"] ?? "");
  if (!/^application\/json\b/i.test(contentType)) problems.push(`content type "${contentType}" is not application/json`);
  let value: unknown;
  try {
    value = parseJsonLossless(request.body.toString("utf8"));
  } catch (error) {
    return [...problems, `the body is not acceptable JSON: ${(error as Error).message}`];
  }
  const schema = resolvePointer(schemas.spec, `${requestBodyPointer}/content/application~1json/schema`);
  // Oversize arrays first: the schema validator is not run on them at all.
  const oversize = oversizeArrays(schemas.spec, schema.node, value);
  if (oversize.length) return [...problems, ...oversize];
  for (const error of schemas.validate(schema.pointer, value)) problems.push(`body${withoutRoot(error)}`);
  return problems;
}

type SchemasLike = Pick<SpecSchemas, "spec" | "validate">;

export async function checkSignature(request: IncomingRequestShape, secrets: Map<string, string[]> | undefined, nonceStore: NonceStore, now: () => number = Date.now): Promise<string[]> {
  const appKey = request.headers[SIGNATURE_HEADERS.appKey.toLowerCase()];
  if (!secrets || (typeof appKey === "string" && !secrets.has(appKey))) {
    // Without the app's secret only the headers' presence can be checked: the proxy does not
    // know every app the server knows, so an app key it was not given is not a violation.
    return Object.values(SIGNATURE_HEADERS)
      .filter((name) => !request.headers[name.toLowerCase()])
      .map((name) => `signature header ${name} is missing`);
  }
  const verification = await verifySignedRequest({ headers: request.headers, body: request.body, secretsFor: (key) => secrets.get(key), nonceStore, now });
  return verification.ok ? [] : [`signature: ${verification.message} (${verification.code} ${verification.name})`];
}
