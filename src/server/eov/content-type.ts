// The request's Content-Type as express-openapi-validator's (EOV's) validators key and see it:
// each distinct header parsed once, EOV's cache key of an operation's validators, and the
// canonical type shown to them.
import type { Request } from "express";
import { ContentType, contentTypeNotProvided, openApiMetadataOf, type OpenApiRequestMetadata } from "./internals.js";

const CONTENT_TYPE_LIMIT = 64;
const contentTypes = new Map<string, ContentType>();
const notProvided = contentTypeNotProvided();
const normalizedTypes = new WeakMap<ContentType, string>();

/** ContentType.from(req), each distinct header parsed once (at most CONTENT_TYPE_LIMIT kept). */
export function contentTypeOf(req: Request): ContentType {
  const header = req.headers["content-type"];
  if (header === undefined) return notProvided;
  let found = contentTypes.get(header);
  if (!found) {
    found = ContentType.fromString(header);
    if (contentTypes.size < CONTENT_TYPE_LIMIT) contentTypes.set(header, found);
  }
  return found;
}

/** EOV's key for an operation's validators: method, Express route, normalised request Content-Type. */
export function validatorKey(req: Request, openapi: OpenApiRequestMetadata, contentType: ContentType): string {
  // Both steps key every request: each ContentType is normalised once (its parameters sorted).
  let normalized = normalizedTypes.get(contentType);
  if (normalized === undefined) {
    normalized = contentType.normalize() ?? "not_provided";
    normalizedTypes.set(contentType, normalized);
  }
  return `${req.method}-${openapi.expressRoute}-${normalized}`;
}

/**
 * The request's Content-Type as the validators see it: none at all for an operation without a
 * request body, "application/json" for any JSON one (other parameters dropped). EOV keys its
 * compiled validators by the normalised request Content-Type, so every new spelling an
 * authenticated caller sends (`text/x-1`, `text/x-2`, or `application/json; x=1`, ...) would
 * otherwise compile the operation's validators again: some 120 ms of CPU and 0.5 MB kept, per
 * request. Neither change alters what EOV decides: JSON parameters do not change the body schema
 * it picks (it falls back to the bare media type), and without a request body the type is not
 * read. A body that is not JSON never gets here (requireJson), so the types left as sent are
 * those of empty requests to operations that take a body, which EOV refuses (415) before it
 * compiles anything.
 */
// As BodySchemaParser decides whether an operation reads a body (the preprocessor may leave a
// null requestBody on one that does not).
const hasRequestBodyContent = (operation: Record<string, unknown>): boolean =>
  typeof operation.requestBody === "object" && operation.requestBody !== null && Object.hasOwn(operation.requestBody, "content");

export function canonicalContentType(req: Request): void {
  const header = req.headers["content-type"];
  const openapi = openApiMetadataOf(req);
  if (header === undefined || openapi === undefined) return;
  if (!hasRequestBodyContent(openapi.schema)) {
    delete req.headers["content-type"];
    return;
  }
  if (header === "application/json") return;
  const semicolon = header.indexOf(";");
  const mediaType = (semicolon < 0 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  if (mediaType === "application/json") req.headers["content-type"] = "application/json";
}
