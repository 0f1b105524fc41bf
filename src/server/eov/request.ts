// Request validation for express-openapi-validator (EOV): RequestValidator, but for an operation
// whose parameters are plain scalars in the query or path, in their default styles (every
// operation of the package's specs), and a request whose query string holds no character EOV's
// parameter mutator would act on, it runs what EOV's per-operation middleware runs minus that
// mutator, which has nothing to do for such a request yet re-parses the URL and walks every
// parameter's schema on every request (some 40 µs of CPU): the same Ajv validators, compiled from
// the same schemas (ParametersSchemaParser, BodySchemaParser, useAjvCache under EOV's own cache
// key), the same unknown-parameter check (processQueryParam) and the same errors. Anything else
// goes to RequestValidator.validate. Goes when EOV skips the mutator for parameters it has nothing
// to do for (no upstream issue found).
import type { Request, RequestHandler } from "express";
import { contentTypeOf, validatorKey } from "./content-type.js";
import { cachedValidator, normalizedParameter, openApiMetadataOf, operationSchemas, requestValidationError, type AjvValidate, type ApiDoc, type ContentType, type OpenApiRequestMetadata, type RequestValidatorInternals } from "./internals.js";

/** An operation's validators when the mutator has nothing to do for it; "eov" sends it to EOV's path. */
type Plan = { general: AjvValidate; body: AjvValidate; queryProperties: unknown; allowUnknownQuery: boolean } | "eov";

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);
// A query string of these characters needs none of the mutator's work: no reserved character
// in a value (EOV refuses those unencoded, "," included for an exploded form parameter), no
// bracket notation, nothing url.parse would escape.
const PLAIN_URL = /^[^?#]*(\?[A-Za-z0-9\-._~%=&]*)?$/;
const PLAN_LIMIT = 1024;

/**
 * EOV's request validation (RequestValidator.validate) with the fast path described at the top:
 * the same checks and errors, without the parameter mutator where it has nothing to do.
 */
export function requestStep(eov: RequestValidatorInternals, apiDoc: ApiDoc): RequestHandler {
  // EOV exempts query parameters carrying an API key from the unknown-parameter check: with such
  // a scheme anywhere, every request takes EOV's path.
  const queryKeyScheme = Object.values(apiDoc.components?.securitySchemes ?? {}).some((scheme) => scheme.type === "apiKey" && scheme.in === "query");
  const plans = new Map<string, Plan>();

  function isPlainOperation(schema: { parameters?: unknown[] }, expressRoute: string): boolean {
    if (queryKeyScheme || expressRoute.endsWith("*")) return false;
    for (const given of schema.parameters ?? []) {
      // With its default style and explode, as EOV's parsers give it.
      const { parameter, schema: normalized } = normalizedParameter(eov, apiDoc, given);
      if (parameter.content !== undefined || parameter.allowReserved) return false;
      if (!(parameter.in === "query" && parameter.style === "form" && parameter.explode === true) && !(parameter.in === "path" && parameter.style === "simple" && parameter.explode === false)) return false;
      if (!SCALAR_TYPES.has(normalized.type as string) || ["oneOf", "anyOf", "allOf", "$ref", "properties", "items"].some((key) => key in normalized)) return false;
    }
    return true;
  }

  /** RequestValidator.buildMiddleware's validators (its private Validator class), for a plain operation. */
  function plan(openapi: OpenApiRequestMetadata, contentType: ContentType, key: string): Plan {
    const schema = openapi.schema as { parameters?: unknown[]; "x-eov-allow-unknown-query-parameters"?: unknown; "x-allow-unknown-query-parameters"?: unknown };
    if (contentType.mediaType === "multipart/form-data" || !isPlainOperation(schema, openapi.expressRoute)) return "eov";
    let body: Record<string, unknown>;
    let parameters: Record<string, unknown>;
    try {
      ({ parameters, body } = operationSchemas(eov, apiDoc, openapi.expressRoute, schema, contentType));
    } catch {
      // An unsupported media type and the like: EOV's path throws its own error for it.
      return "eov";
    }
    const general = { paths: apiDoc.paths, components: apiDoc.components, required: ["query", "headers", "params"], properties: { ...parameters, body: {} } };
    const binary = body.format === "binary";
    const bodySchema: Record<string, unknown> = { paths: apiDoc.paths, components: apiDoc.components, properties: { query: {}, headers: {}, params: {}, cookies: {}, body: binary ? {} : body } };
    if (body.required && !binary) bodySchema.required = ["body"];
    if ((body as { _discriminator?: unknown })._discriminator !== undefined) return "eov";
    const allowUnknown = schema["x-eov-allow-unknown-query-parameters"] ?? schema["x-allow-unknown-query-parameters"] ?? eov.requestOpts.allowUnknownQueryParameters;
    return {
      general: cachedValidator(eov.ajv, general, key),
      body: cachedValidator(eov.ajvBody, bodySchema, key),
      queryProperties: parameters.query,
      allowUnknownQuery: !!allowUnknown,
    };
  }

  return (req, res, next) => {
    const openapi = openApiMetadataOf(req);
    if (!openapi || !PLAIN_URL.test(req.originalUrl)) return eov.validate(req, res, next);
    const contentType = contentTypeOf(req);
    // EOV's cache key, so both paths share the compiled validators.
    const key = validatorKey(req, openapi, contentType);
    let found = plans.get(key);
    if (found === undefined) {
      found = plan(openapi, contentType, key);
      if (plans.size < PLAN_LIMIT) plans.set(key, found);
    }
    if (found === "eov") return eov.validate(req, res, next);
    if (Object.keys(openapi.pathParams).length > 0) req.params = openapi.pathParams;
    // Express 5 parses req.query on every read: keep the one object Ajv coerces (as EOV does).
    const query = req.query as Record<string, unknown>;
    const descriptor = Object.getOwnPropertyDescriptor(req, "query");
    Object.defineProperty(req, "query", { writable: true, value: query });
    if (!found.allowUnknownQuery) eov.processQueryParam(query, found.queryProperties, []);
    if (descriptor) Object.defineProperty(req, "query", descriptor);
    const withCookies = req as Request & { cookies?: object; signedCookies?: object };
    const cookies = withCookies.cookies ? { ...withCookies.cookies, ...withCookies.signedCookies } : undefined;
    const data = { query: query ?? {}, headers: req.headers, params: req.params, cookies, body: req.body as unknown };
    const valid = found.general(data);
    const validBody = found.body(data);
    if (valid && validBody) return next();
    throw requestValidationError(eov, req.path, [...(found.general.errors ?? []), ...(found.body.errors ?? [])]);
  };
}

