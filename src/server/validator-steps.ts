// The per-request steps of the server kit's express-openapi-validator (EOV) adapter
// (validator.ts loads the spec and matches the route): request validation, response validation,
// and the request Content-Type the validators see. Like validator.ts, written against the exact
// EOV version pinned in package.json (5.6.2); test/server/validator-adapter.test.ts fails,
// naming what moved, when any internal below is missing or changed shape, and
// test/sandbox/fast-paths.test.ts proves the answers are EOV's own.
//
// Each internal use, and the upstream change that would remove it:
//
//   - Request validation (requestStep) calls EOV's RequestValidator, but for an operation whose
//     parameters are plain scalars in the query or path, in their default styles (every
//     operation of the package's specs), and a request whose query string holds no character
//     EOV's parameter mutator would act on, it runs what EOV's per-operation middleware runs
//     minus that mutator, which has nothing to do for such a request yet re-parses the URL and
//     walks every parameter's schema on every request (some 40 µs of CPU): the same Ajv validators, compiled from the same
//     schemas (ParametersSchemaParser, BodySchemaParser, useAjvCache under EOV's own cache key),
//     the same unknown-parameter check (processQueryParam) and the same errors. Anything else
//     goes to RequestValidator.validate. Goes when EOV skips the mutator for parameters it has
//     nothing to do for (no upstream issue found).
//
//   - Response validation (responseStep) runs ResponseValidator's own munger and its private
//     _getOrBuildValidator and _validate, but hooks res.json with one shared function instead of
//     the modded express-mung closure EOV builds per request, and reuses the request step's parse
//     of the request's Content-Type for the validator cache key. _validate's choice of Ajv
//     validator (by status, then findResponseContent over the accepted types, then
//     canValidateContentType) depends on nothing else, so it is made once per status and
//     header and the chosen validator then runs alone, with _validate's error built as it
//     builds it (ajvBody.errorsText); every answer it would not validate plainly (no schema for
//     the status, no content, a null body, a type it cannot validate) still goes to _validate.
//     Goes when EOV exposes a per-answer validation call (no upstream issue found).
//
// Both are keyed, as EOV keys them, by the request's Content-Type: canonicalContentType shows
// the validators a canonical one, so a caller cannot make them compile again with every new
// spelling.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { BadRequest, InternalServerError } from "express-openapi-validator/dist/framework/types.js";
import type { RequestValidator } from "express-openapi-validator/dist/middlewares/openapi.request.validator.js";
import type { ResponseValidator } from "express-openapi-validator/dist/middlewares/openapi.response.validator.js";
import { ParametersSchemaParser } from "express-openapi-validator/dist/middlewares/parsers/schema.parse.js";
import { BodySchemaParser } from "express-openapi-validator/dist/middlewares/parsers/body.parse.js";
import { dereferenceParameter, normalizeParameter } from "express-openapi-validator/dist/middlewares/parsers/util.js";
import type { AnswerCheck, ResponseValidationFailure } from "./state.js";
import { ContentType, ajvErrorsToValidatorError, augmentAjvErrors, findResponseContent, useAjvCache } from "express-openapi-validator/dist/middlewares/util.js";

/** What express-openapi-validator sets on a matched request. */
export interface OpenApiRequestMetadata {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: { operationId?: string; [key: string]: unknown };
  serial: number;
  _responseSchema?: unknown;
}

type Paths = Record<string, Record<string, unknown>>;
type ApiDoc = { paths: Paths; components?: { securitySchemes?: Record<string, { type?: string; in?: string }> } };
type AjvValidate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

interface RequestValidatorInternals {
  ajv: { errorsText(errors: unknown[], options: { dataVar: string }): string };
  ajvBody: unknown;
  requestOpts: { allowUnknownQueryParameters?: boolean };
  validate(req: Request, res: Response, next: NextFunction): void;
  processQueryParam(query: unknown, schema: unknown, whiteList?: string[]): void;
}

/** An operation's validators when the mutator has nothing to do for it; "eov" sends it to EOV's path. */
type Plan = { general: AjvValidate; body: AjvValidate; queryProperties: unknown; allowUnknownQuery: boolean } | "eov";

const SCALAR_TYPES = new Set(["string", "integer", "number", "boolean"]);
// A query string of these characters needs none of the mutator's work: no reserved character
// in a value (EOV refuses those unencoded, "," included for an exploded form parameter), no
// bracket notation, nothing url.parse would escape.
const PLAIN_URL = /^[^?#]*(\?[A-Za-z0-9\-._~%=&]*)?$/;
const PLAN_LIMIT = 1024;
const CONTENT_TYPE_LIMIT = 64;

const contentTypes = new Map<string, ContentType>();
const notProvided = ContentType.fromString(undefined as unknown as string);
const normalizedTypes = new WeakMap<ContentType, string>();

/** ContentType.from(req), each distinct header parsed once (at most CONTENT_TYPE_LIMIT kept). */
function contentTypeOf(req: Request): ContentType {
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
function validatorKey(req: Request, openapi: OpenApiRequestMetadata, contentType: ContentType): string {
  // Both steps key every request: each ContentType is normalised once (its parameters sorted).
  let normalized = normalizedTypes.get(contentType);
  if (normalized === undefined) {
    normalized = contentType.normalize() ?? "not_provided";
    normalizedTypes.set(contentType, normalized);
  }
  return `${req.method}-${openapi.expressRoute}-${normalized}`;
}

/**
 * EOV's request validation (RequestValidator.validate) with the fast path described at the top:
 * the same checks and errors, without the parameter mutator where it has nothing to do.
 */
export function requestStep(validator: RequestValidator, apiDoc: ApiDoc): RequestHandler {
  const eov = validator as unknown as RequestValidatorInternals;
  // EOV exempts query parameters carrying an API key from the unknown-parameter check: with such
  // a scheme anywhere, every request takes EOV's path.
  const queryKeyScheme = Object.values(apiDoc.components?.securitySchemes ?? {}).some((scheme) => scheme.type === "apiKey" && scheme.in === "query");
  const plans = new Map<string, Plan>();

  function isPlainOperation(schema: { parameters?: unknown[] }, expressRoute: string): boolean {
    if (queryKeyScheme || expressRoute.endsWith("*")) return false;
    for (const given of schema.parameters ?? []) {
      const parameter = dereferenceParameter(apiDoc as never, given as never) as { in?: string; content?: unknown; style?: unknown; explode?: unknown; allowReserved?: unknown };
      // normalizeParameter gives the parameter its default style and explode, as EOV's parsers do.
      const normalized = normalizeParameter(eov.ajv as never, parameter as never).schema as unknown as Record<string, unknown>;
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
      parameters = new ParametersSchemaParser(eov.ajv as never, apiDoc as never).parse(openapi.expressRoute, schema.parameters as never) as unknown as Record<string, unknown>;
      body = new BodySchemaParser().parse(openapi.expressRoute, schema as never, contentType) as Record<string, unknown>;
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
      general: useAjvCache(eov.ajv as never, general, key) as AjvValidate,
      body: useAjvCache(eov.ajvBody as never, bodySchema, key) as AjvValidate,
      queryProperties: parameters.query,
      allowUnknownQuery: !!allowUnknown,
    };
  }

  return (req, res, next) => {
    const openapi = (req as Request & { openapi?: OpenApiRequestMetadata }).openapi;
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
    const errors = augmentAjvErrors([...(found.general.errors ?? []), ...(found.body.errors ?? [])] as never);
    const error = new BadRequest({ path: req.path, message: eov.ajv.errorsText(errors, { dataVar: "request" }) });
    error.errors = ajvErrorsToValidatorError(400, errors).errors;
    throw error;
  };
}

interface ResponseValidatorInternals {
  serial: number;
  validatorsCache: Record<string, unknown>;
  ajvBody: { errorsText(errors: unknown[], options: { dataVar: string }): string };
  buildValidators(responses: unknown, key: string): unknown;
  canValidateContentType(contentType: string): boolean;
  _validate(args: { validators: unknown; body: unknown; statusCode: number; path: string; accepts: string[] }): void;
}

/** The Ajv validator _validate would run for one status and one list of accepted types, or "eov" for anything but that plain case. */
type AnswerPlan = AjvValidate | "eov";
const ANSWER_PLAN_LIMIT = 64;
const ANSWER_PLAN_KEY_CHARS = 256;

/**
 * The choice ResponseValidator._validate makes before it validates: the status's validators
 * (exact, then 2XX-style, then default), the content type (findResponseContent over the
 * accepted types, else the first declared), and whether that type is JSON. Every case where
 * _validate would answer without validating (no schema for the status, no content declared,
 * a type it cannot validate) is "eov", and _validate itself then runs.
 */
function planAnswer(eov: ResponseValidatorInternals, validators: unknown, status: number, accepts: string[]): AnswerPlan {
  const byStatus = validators as Record<string, Record<string, AjvValidate> | undefined>;
  const code = String(status);
  const chosen = Object.hasOwn(byStatus, code) ? byStatus[code] : Object.hasOwn(byStatus, `${code[0]}XX`) ? byStatus[`${code[0]}XX`] : byStatus.default;
  if (!chosen) return "eov";
  const types = Object.keys(chosen);
  const type = findResponseContent(accepts, types) || types[0];
  const validator = type === undefined ? undefined : chosen[type];
  if (type === undefined || typeof validator !== "function") return "eov";
  try {
    if (!eov.canValidateContentType(type)) return "eov";
  } catch {
    // _validate validates when the type cannot be parsed.
  }
  return validator;
}

/**
 * EOV's response validation (ResponseValidator.validate()'s munger) as one call the answer
 * writer makes with the answer it is about to write: the verdict, undefined when the answer
 * fits its schema. An unexpected throw of the check itself is thrown on.
 */
export function responseCheck(validator: ResponseValidator): AnswerCheck {
  const eov = validator as unknown as ResponseValidatorInternals;
  const answerPlans = new WeakMap<object, Map<string, AnswerPlan>>();

  return (res: Response, status: number, body: unknown): ResponseValidationFailure | undefined => {
    const req = res.req;
    const openapi = (req as Request & { openapi?: OpenApiRequestMetadata }).openapi;
    if (!openapi || eov.serial != openapi.serial) return undefined;
    // ResponseValidator._getOrBuildValidator, with the request's Content-Type parsed once.
    const key = validatorKey(req, openapi, contentTypeOf(req));
    let validators = eov.validatorsCache[key];
    if (!validators) {
      validators = eov.buildValidators((openapi._responseSchema as { responses?: unknown } | undefined)?.responses, key);
      eov.validatorsCache[key] = validators;
    }
    const contentType = res.getHeader("content-type");
    const accept = req.headers.accept;
    const accepts = (): string[] => (contentType ? [contentType as string] : accept ? accept.split(",").map((type) => type.trim()) : []);
    try {
      // _validate's choice of validator depends only on the status and the accepted types:
      // made once per validators, status and header, then the chosen Ajv validator runs alone.
      let plans = answerPlans.get(validators as object);
      if (!plans) answerPlans.set(validators as object, (plans = new Map()));
      const planKey = `${status} ${contentType ? `type ${String(contentType)}` : `accept ${accept ?? ""}`}`;
      let plan = plans.get(planKey);
      if (plan === undefined) {
        plan = planAnswer(eov, validators, status, accepts());
        // Bounded: at most 64 keys per operation's validators, each of a short header.
        if (plans.size < ANSWER_PLAN_LIMIT && planKey.length <= ANSWER_PLAN_KEY_CHARS) plans.set(planKey, plan);
      }
      if (plan === "eov" || body === undefined || body === null) {
        eov._validate({ validators, body, statusCode: status, path: req.originalUrl, accepts: accepts() });
      } else if (!plan({ response: body })) {
        // The error _validate throws, built as it builds it.
        const errors = augmentAjvErrors(plan.errors as never);
        return new InternalServerError({ path: req.originalUrl, errors: ajvErrorsToValidatorError(500, errors).errors, message: eov.ajvBody.errorsText(errors, { dataVar: "" }) });
      }
    } catch (error) {
      if (error instanceof InternalServerError) return error;
      throw error;
    }
    return undefined;
  };
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
  const openapi = (req as Request & { openapi?: OpenApiRequestMetadata }).openapi;
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
