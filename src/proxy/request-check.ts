// Checks one request against the spec: path and query parameters, body, and (when the proxy
// knows the app's secrets) the signature. Every schema is found by following the spec's own
// $refs, so parameters and bodies defined as components are checked like inline ones.
import { parseJsonLossless } from "../json/index.js";
import { verifySignedRequest, type NonceStore, SIGNATURE_HEADERS } from "../signing/index.js";
import { describeOversizeArray, findOversizeArrays, requestBodyArrayLimits, type ArrayLimits, type RouteMatch, type SpecSchemas } from "../contract/index.js";

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
  const params = schemas.parameters(match.operationId);
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
  problems.push(...checkBody(schemas, match.operationId, request));
  return problems;
}

const arrayLimits = new WeakMap<SpecSchemas, Map<string, ArrayLimits | undefined>>();

function bodyArrayLimits(schemas: SpecSchemas, operationId: string): ArrayLimits | undefined {
  let perSpec = arrayLimits.get(schemas);
  if (!perSpec) arrayLimits.set(schemas, (perSpec = new Map()));
  if (!perSpec.has(operationId)) perSpec.set(operationId, requestBodyArrayLimits(schemas.spec, schemas.operation(operationId).operation));
  return perSpec.get(operationId);
}

/** True when the request sends a body: bytes read, a Content-Length above 0, or chunked framing. */
export function announcesBody(headers: IncomingRequestShape["headers"], bodyLength = 0): boolean {
  if (bodyLength > 0 || headers["transfer-encoding"] !== undefined) return true;
  const length = Number(headers["content-length"]);
  return Number.isFinite(length) && length > 0;
}

/**
 * Why a request breaks the rule that an operation without a request body takes none (DESIGN
 * item 15), or undefined. The string to sign has no separators, so a body there could carry the
 * end of a used nonce (a replayed GET); servers refuse it with 100009 before reading it.
 */
export function bodyOnBodylessOperation(schemas: SpecSchemas, operationId: string, method: string, headers: IncomingRequestShape["headers"], bodyLength = 0): string | undefined {
  if (schemas.requestBodySchemaPointer(operationId) || !announcesBody(headers, bodyLength)) return undefined;
  const sent = headers["transfer-encoding"] !== undefined ? "a chunked body" : `a body of ${bodyLength || headers["content-length"]} bytes`;
  return `body: ${operationId} (${method}) takes no request body, and this request sends ${sent}; a server refuses it with 100009 (the string to sign has no separators, so a body where none belongs could carry the end of a used nonce)`;
}

function checkBody(schemas: SpecSchemas, operationId: string, request: IncomingRequestShape): string[] {
  const schemaPointer = schemas.requestBodySchemaPointer(operationId);
  if (!schemaPointer) {
    const problem = bodyOnBodylessOperation(schemas, operationId, request.method, request.headers, request.body.length);
    return problem ? [problem] : [];
  }
  if (request.body.length === 0 && !schemas.requestBodyRequired(operationId)) return [];
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
  // Oversize arrays first: the schema validator is not run on them at all.
  const oversize = findOversizeArrays(bodyArrayLimits(schemas, operationId), value);
  if (oversize.length) return [...problems, ...oversize.map(describeOversizeArray)];
  for (const error of schemas.validate(schemaPointer, value)) problems.push(`body${withoutRoot(error)}`);
  return problems;
}

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
