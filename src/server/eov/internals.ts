// Every use of express-openapi-validator's (EOV's) internals, in one file: its deep imports, the
// private members the adapter reads or writes, and every cast between EOV's types and the kit's.
// The rest of src/server/eov/ calls only what this file exports. Written against the exact EOV
// release pinned in package.json (SUPPORTED_VALIDATOR_VERSION); test/server/validator-adapter.test.ts
// fails, naming what moved, when another release is installed or any member below is missing or
// changed shape. Why each internal is used, and the upstream change that would remove it, is said
// at the top of the module that uses it (load.ts, routing.ts, request.ts, response.ts).
import type { Request, Response, NextFunction } from "express";
import { OpenApiValidator, type OpenApiValidatorOpts } from "express-openapi-validator/dist/openapi.validator.js";
import { OpenAPIFramework } from "express-openapi-validator/dist/framework/index.js";
import { OpenApiSpecLoader, type Spec } from "express-openapi-validator/dist/framework/openapi.spec.loader.js";
import { OpenApiContext } from "express-openapi-validator/dist/framework/openapi.context.js";
import { BadRequest, InternalServerError, MethodNotAllowed, NotFound } from "express-openapi-validator/dist/framework/types.js";
import { RequestValidator } from "express-openapi-validator/dist/middlewares/openapi.request.validator.js";
import { ResponseValidator } from "express-openapi-validator/dist/middlewares/openapi.response.validator.js";
import { SchemaPreprocessor, httpMethods } from "express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js";
import { ParametersSchemaParser } from "express-openapi-validator/dist/middlewares/parsers/schema.parse.js";
import { BodySchemaParser } from "express-openapi-validator/dist/middlewares/parsers/body.parse.js";
import { dereferenceParameter, normalizeParameter } from "express-openapi-validator/dist/middlewares/parsers/util.js";
import { ContentType, ajvErrorsToValidatorError, augmentAjvErrors, findResponseContent, useAjvCache } from "express-openapi-validator/dist/middlewares/util.js";
import { createRequire } from "node:module";
import type { OpenApiDocument } from "../../contract/index.js";

export { BadRequest, ContentType, findResponseContent, httpMethods, InternalServerError, MethodNotAllowed, NotFound, OpenAPIFramework, OpenApiContext, type OpenApiValidatorOpts };

/** The express-openapi-validator release the adapter is written against: its internals move between releases. */
export const SUPPORTED_VALIDATOR_VERSION = "5.6.2";

// path-to-regexp exactly as EOV resolves it (it is EOV's dependency, not the package's).
const requireFromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
export const { pathToRegexp } = requireFromValidator("path-to-regexp") as {
  pathToRegexp(path: string, options: { sensitive: boolean; strict: boolean }): { regexp: RegExp; keys: { name: string }[] };
};

/** The installed EOV release, read from its package.json. */
export const installedValidatorVersion = (): string => (requireFromValidator("../package.json") as { version: string }).version;

export type Paths = Record<string, Record<string, unknown>>;
export type ApiDoc = { paths: Paths; components?: { securitySchemes?: Record<string, { type?: string; in?: string }> } };
export type AjvValidate = ((data: unknown) => boolean) & { errors?: unknown[] | null };

/** What EOV sets on a matched request (req.openapi), and its validators read. */
export interface OpenApiRequestMetadata {
  expressRoute: string;
  openApiRoute: string;
  pathParams: Record<string, string>;
  schema: { operationId?: string; [key: string]: unknown };
  serial: number;
  _responseSchema?: unknown;
}

export const openApiMetadataOf = (req: Request): OpenApiRequestMetadata | undefined => (req as Request & { openapi?: OpenApiRequestMetadata }).openapi;
export const setOpenApiMetadata = (req: Request, openapi: OpenApiRequestMetadata): void => void ((req as Request & { openapi?: OpenApiRequestMetadata }).openapi = openapi);

// ------------------------------------------------------------------ loading (load.ts)

/** OpenApiValidator built from the kit's options; its private options and Ajv options. */
export function createValidatorOptions(options: OpenApiValidatorOpts): { validator: OpenApiValidator; options: { validateResponses: unknown }; ajvOpts: { preprocessor: unknown; request: unknown; response: unknown } } {
  const validator = new OpenApiValidator(options);
  const internals = validator as unknown as { options: { validateResponses: unknown }; ajvOpts: { preprocessor: unknown; request: unknown; response: unknown } };
  return { validator, options: internals.options, ajvOpts: internals.ajvOpts };
}

/** The spec option of EOV, which its types want as its own document type. */
export const asApiSpec = (spec: OpenApiDocument): OpenApiValidatorOpts["apiSpec"] => spec as never;

type Visitor = { visitApi?: (ctx: { basePaths: string[]; getApiDoc: () => unknown }) => void };

interface FrameworkInternals {
  args: { apiDoc: unknown; $refParser?: unknown };
  loadSpec(apiDoc: unknown, refParser: unknown): Promise<{ servers?: unknown[] }>;
  getBasePathsFromServers(servers: unknown): { all(): string[] }[];
  sortApiDocTags(apiDoc: unknown): void;
}

/**
 * OpenAPIFramework.initialize of EOV 5.6.2, less the OpenAPI meta-schema (compiled there even
 * when validateApiSpec is false) and less $RefParser.bundle: the specs in generated/ are bundled
 * already (local references only), and bundling them again gives back the very same document
 * (checked by test/server/fast-paths.test.ts), after some 30 ms of crawling.
 */
export class SpecOnlyFramework extends OpenAPIFramework {
  override async initialize(visitor: Visitor): Promise<never> {
    const self = this as unknown as FrameworkInternals;
    const apiDoc = (typeof self.args.apiDoc === "object" && self.args.apiDoc !== null ? self.args.apiDoc : await self.loadSpec(self.args.apiDoc, self.args.$refParser)) as { servers?: unknown[] };
    const basePaths = [...new Set(self.getBasePathsFromServers(apiDoc.servers).flatMap((basePath) => basePath.all()))];
    self.sortApiDocTags(apiDoc);
    visitor.visitApi?.({ basePaths, getApiDoc: () => apiDoc });
    return { apiDoc, basePaths } as never;
  }
}

/** OpenApiSpecLoader over a copy of the spec, with SpecOnlyFramework in place of its framework; the loaded spec. */
export function loadSpec(spec: OpenApiDocument): Promise<Spec> {
  const loaderArgs = { apiDoc: structuredClone(spec) as never, validateApiSpec: false, $refParser: { mode: "bundle" as const } };
  const loader = new OpenApiSpecLoader(loaderArgs);
  (loader as unknown as { framework: OpenAPIFramework }).framework = new SpecOnlyFramework(loaderArgs);
  return loader.load();
}

/** SchemaPreprocessor over the loaded spec, as OpenApiValidator.installMiddleware builds it. */
export function createPreprocessor(loaded: Spec, built: ReturnType<typeof createValidatorOptions>): SchemaPreprocessor {
  return new SchemaPreprocessor(loaded.apiDoc, built.ajvOpts.preprocessor as never, built.options.validateResponses as never);
}

/** The preprocessor's private cache of resolved references (undefined if it moved). */
export const resolvedSchemaCacheOf = (preprocessor: SchemaPreprocessor): Map<string, unknown> | undefined => {
  const cache = (preprocessor as unknown as { resolvedSchemaCache?: unknown }).resolvedSchemaCache;
  return cache instanceof Map ? (cache as Map<string, unknown>) : undefined;
};

/** preProcess()'s response document. */
export const preprocess = (preprocessor: SchemaPreprocessor): { paths: Paths } => preprocessor.preProcess().apiDocRes as unknown as { paths: Paths };

/** The route context of a loaded spec (no ignore function; documented routes only). */
export const createContext = (loaded: Spec): OpenApiContext => new OpenApiContext(loaded, undefined as never, false, false);

/** The context's API document, as the kit's own code reads it. */
export const apiDocOf = (context: OpenApiContext): ApiDoc & Record<string, unknown> => context.apiDoc as unknown as ApiDoc & Record<string, unknown>;

// ------------------------------------------------------------------ routing (routing.ts)

export interface ContextInternals {
  expressRouteMap: Record<string, { basePath: string }>;
  openApiRouteMap: Record<string, Record<string, unknown>>;
  apiDoc: { paths: Paths };
}

export const contextInternals = (context: OpenApiContext): ContextInternals => context as unknown as ContextInternals;

// ------------------------------------------------------------------ requests (request.ts)

export interface RequestValidatorInternals {
  ajv: { errorsText(errors: unknown[], options: { dataVar: string }): string };
  ajvBody: unknown;
  requestOpts: { allowUnknownQueryParameters?: boolean };
  validate(req: Request, res: Response, next: NextFunction): void;
  processQueryParam(query: unknown, schema: unknown, whiteList?: string[]): void;
}

/** RequestValidator as OpenApiValidator's private requestValidationMiddleware builds it, with its private members. */
export function createRequestValidator(context: OpenApiContext, built: ReturnType<typeof createValidatorOptions>): RequestValidatorInternals {
  return new RequestValidator(context.apiDoc as never, built.ajvOpts.request as never) as unknown as RequestValidatorInternals;
}

/** A parameter with its $ref followed, and its schema with EOV's default style and explode. */
export function normalizedParameter(validator: RequestValidatorInternals, apiDoc: ApiDoc, given: unknown): { parameter: { in?: string; content?: unknown; style?: unknown; explode?: unknown; allowReserved?: unknown }; schema: Record<string, unknown> } {
  const parameter = dereferenceParameter(apiDoc as never, given as never) as { in?: string; content?: unknown; style?: unknown; explode?: unknown; allowReserved?: unknown };
  const schema = normalizeParameter(validator.ajv as never, parameter as never).schema as unknown as Record<string, unknown>;
  return { parameter, schema };
}

/** The schemas RequestValidator.buildMiddleware compiles for an operation: its parameters', and its body's for a content type. */
export function operationSchemas(validator: RequestValidatorInternals, apiDoc: ApiDoc, expressRoute: string, schema: { parameters?: unknown[] }, contentType: ContentType): { parameters: Record<string, unknown>; body: Record<string, unknown> } {
  const parameters = new ParametersSchemaParser(validator.ajv as never, apiDoc as never).parse(expressRoute, schema.parameters as never) as unknown as Record<string, unknown>;
  const body = new BodySchemaParser().parse(expressRoute, schema as never, contentType) as Record<string, unknown>;
  return { parameters, body };
}

/** EOV's Ajv cache: the validator compiled under its own key. */
export const cachedValidator = (ajv: unknown, schema: object, key: string): AjvValidate => useAjvCache(ajv as never, schema, key) as AjvValidate;

/** The 400 EOV's request validator throws for these Ajv errors. */
export function requestValidationError(validator: RequestValidatorInternals, path: string, ajvErrors: unknown[]): BadRequest {
  const errors = augmentAjvErrors(ajvErrors as never);
  const error = new BadRequest({ path, message: validator.ajv.errorsText(errors, { dataVar: "request" }) });
  error.errors = ajvErrorsToValidatorError(400, errors).errors;
  return error;
}

/** The "not provided" content type EOV gives a request without one. */
export const contentTypeNotProvided = (): ContentType => ContentType.fromString(undefined as unknown as string);

// ------------------------------------------------------------------ answers (response.ts)

export interface ResponseValidatorInternals {
  serial: number;
  validatorsCache: Record<string, unknown>;
  ajvBody: { errorsText(errors: unknown[], options: { dataVar: string }): string };
  buildValidators(responses: unknown, key: string): unknown;
  canValidateContentType(contentType: string): boolean;
  _validate(args: { validators: unknown; body: unknown; statusCode: number; path: string; accepts: string[] }): void;
}

/** ResponseValidator as OpenApiValidator's private responseValidationMiddleware builds it, with its private members. */
export function createResponseValidator(responseApiDoc: { paths: Paths }, context: OpenApiContext, built: ReturnType<typeof createValidatorOptions>): ResponseValidatorInternals {
  return new ResponseValidator(responseApiDoc as never, built.ajvOpts.response as never, built.options.validateResponses as never, context.serial) as unknown as ResponseValidatorInternals;
}

/** The 500 ResponseValidator._validate throws for these Ajv errors. */
export function answerValidationError(validator: ResponseValidatorInternals, path: string, ajvErrors: unknown[]): InternalServerError {
  const errors = augmentAjvErrors(ajvErrors as never);
  return new InternalServerError({ path, errors: ajvErrorsToValidatorError(500, errors).errors, message: validator.ajvBody.errorsText(errors, { dataVar: "" }) });
}
