// Checks one request against the spec: path and query parameters, body, and (when the proxy
// knows the app's secrets) the signature.
import { parseJsonLossless } from "../json/index.js";
import { verifySignedRequest, type NonceStore, SIGNATURE_HEADERS } from "../signing/index.js";
import { deref, escapePointer, type SpecSchemas } from "../conformance/spec.js";
import type { RouteMatch } from "./routes.js";

export interface IncomingRequestShape {
  method: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Turns query text into the type the parameter schema asks for, so it can be validated. */
function coerce(schema: any, text: string): unknown {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  if ((type === "integer" || type === "number") && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    return /^-?\d+$/.test(text) && !Number.isSafeInteger(Number(text)) ? BigInt(text) : Number(text);
  }
  if (type === "boolean" && (text === "true" || text === "false")) return text === "true";
  return text;
}

export function checkRequestShape(schemas: SpecSchemas, match: RouteMatch, request: IncomingRequestShape): string[] {
  const problems: string[] = [];
  const operation = schemas.operation(match.operationId);
  const params = (operation.operation.parameters ?? []).map((p: unknown) => deref(schemas.spec, p));
  params.forEach((param: any, index: number) => {
    if (param.in !== "query" && param.in !== "path") return;
    const raw = param.in === "path" ? match.pathParams[param.name] : (request.query.get(param.name) ?? undefined);
    if (raw === undefined) {
      if (param.required) problems.push(`${param.in} parameter ${param.name} is required`);
      return;
    }
    const pointer = `${operation.pointer}/parameters/${index}/schema`;
    for (const error of schemas.validate(pointer, coerce(deref(schemas.spec, param.schema), raw))) problems.push(`${param.in}.${param.name}${error.replace(/^\(root\)/, "")}`);
  });
  const declared = new Set(params.filter((p: any) => p.in === "query").map((p: any) => p.name));
  for (const name of new Set(request.query.keys())) if (!declared.has(name)) problems.push(`query parameter ${name} is not in the spec`);
  const requestBody = operation.operation.requestBody;
  if (request.body.length > 0 || requestBody?.required) {
    if (!requestBody) problems.push("the operation takes no body");
    else {
      const contentType = String(request.headers["content-type"] ?? "");
      if (!/^application\/json\b/i.test(contentType)) problems.push(`content type "${contentType}" is not application/json`);
      try {
        const value = parseJsonLossless(request.body.toString("utf8"));
        for (const error of schemas.validate(`${operation.pointer}/requestBody/content/${escapePointer("application/json")}/schema`, value)) problems.push(`body${error.replace(/^\(root\)/, "")}`);
      } catch {
        if (request.body.length > 0) problems.push("the body is not JSON");
        else problems.push("the body is required");
      }
    }
  }
  return problems;
}

export async function checkSignature(request: IncomingRequestShape, secrets: Map<string, string[]> | undefined, nonceStore: NonceStore): Promise<string[]> {
  if (!secrets) {
    // Without secrets only the headers' presence can be checked.
    return Object.values(SIGNATURE_HEADERS).filter((name) => !request.headers[name.toLowerCase()]).map((name) => `signature header ${name} is missing`);
  }
  const verification = await verifySignedRequest({ headers: request.headers, body: request.body, secretsFor: (key) => secrets.get(key), nonceStore });
  return verification.ok ? [] : [`signature: ${verification.message} (${verification.code} ${verification.name})`];
}
