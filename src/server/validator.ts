// express-openapi-validator (EOV) over a bundled spec, assembled from EOV's own parts so that a
// request pays only for what the server kit uses: the one adapter between the kit and EOV's
// internals. The rules, the Ajv options, the compiled schemas, the error objects and their
// messages are all EOV's; what changes is the plumbing. EOV's public middleware
// (`OpenApiValidator.middleware`) with the same options gives the same answers (checked by
// test/sandbox/fast-paths.test.ts) but adds 200-350 µs of CPU to every request, more than a
// whole signed request costs the sandbox, and takes twice as long to start: the throughput
// targets would be missed by far (docs/performance.md, "express-openapi-validator: public
// middleware vs the assembly"; scripts/bench/validator.ts measures it).
//
// Each internal use, and the upstream change that would remove it:
//
//   - Route lookup (metadataStep; OpenApiContext's expressRouteMap, openApiRouteMap, routePair,
//     shouldIgnoreRoute, isManagedRoute; types.js's BadRequest, MethodNotAllowed, NotFound; the
//     path-to-regexp EOV resolves). EOV 5.6's metadata middleware compiles every route of the
//     spec with path-to-regexp on every request until one matches (36 routes in the signed
//     spec: most of what the public middleware costs more, in the profiles); here the same
//     routes are compiled once per routing mode and tried in the same order with the same
//     options, for the same metadata and errors, and the outcome per path is remembered
//     (10,000 paths at most). Goes when EOV caches its compiled route matchers:
//     cdimascio/express-openapi-validator#1217 ("perf: cache route matchers", open).
//   - One synchronous step per request (RequestValidator and ResponseValidator, built as
//     OpenApiValidator's private requestValidationMiddleware and responseValidationMiddleware
//     build them, from its private ajvOpts) instead of the five middlewares EOV chains, each
//     awaiting the loaded spec again. Left out: path-param registration (the kit routes by
//     operationId), security (validateSecurity is false: the signature is checked before) and
//     multipart (a body reaches the validator only as application/json). Goes when EOV calls
//     its built middlewares directly once the spec is loaded and exposes a readiness promise
//     (no upstream issue found).
//   - Loading (SpecOnlyFramework over OpenAPIFramework and OpenApiSpecLoader.framework) skips
//     compiling the OpenAPI meta-schema, which EOV 5.6 does even when validateApiSpec is false
//     (EOV #541/#544 stopped the validation, not the compilation: OpenAPISchemaValidator would have
//     to be built only when validateApiSpec is true), and skips re-bundling an already bundled
//     spec object with $RefParser (EOV would need an option to take apiSpec as bundled; no
//     upstream issue found). The spec is copied with structuredClone.
//   - prefillResolvedReferences hands SchemaPreprocessor's private resolvedSchemaCache the
//     targets of the spec's local references, which EOV finds by compiling each one with Ajv
//     (getSchema) only to take the same object back. Goes when the preprocessor resolves local
//     references by JSON pointer (no upstream issue found).
//
// The per-request steps that run EOV's request and response validators are in
// validator-steps.ts, with the internals they use. Request and response validators are compiled
// by EOV lazily, per operation, on first use.
//
// Everything here is written against the exact EOV version pinned in package.json (5.6.2).
// test/server/validator-adapter.test.ts fails, naming what moved, when another version is
// installed or any internal above is missing or changed shape; test/sandbox/fast-paths.test.ts
// proves the route lookup and the loading give what EOV's own code gives.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { OpenApiValidator, type OpenApiValidatorOpts } from "express-openapi-validator/dist/openapi.validator.js";
import { OpenAPIFramework } from "express-openapi-validator/dist/framework/index.js";
import { OpenApiSpecLoader, type Spec } from "express-openapi-validator/dist/framework/openapi.spec.loader.js";
import { OpenApiContext } from "express-openapi-validator/dist/framework/openapi.context.js";
import { BadRequest, MethodNotAllowed, NotFound } from "express-openapi-validator/dist/framework/types.js";
import { RequestValidator } from "express-openapi-validator/dist/middlewares/openapi.request.validator.js";
import { ResponseValidator } from "express-openapi-validator/dist/middlewares/openapi.response.validator.js";
import { SchemaPreprocessor, httpMethods } from "express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js";
import { createRequire } from "node:module";
import { createArrayLimitCheck } from "./array-limits.js";
import type { OpenApiDocument } from "../contract/index.js";
import { ServerConfigError } from "./errors.js";
import type { SpecName } from "../contract/index.js";
import { requestState, type AnswerCheck } from "./state.js";
import { canonicalContentType, requestStep, responseCheck, type OpenApiRequestMetadata } from "./validator-steps.js";

// path-to-regexp exactly as EOV resolves it (it is EOV's dependency, not the package's).
const requireFromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
const { pathToRegexp } = requireFromValidator("path-to-regexp") as {
  pathToRegexp(path: string, options: { sensitive: boolean; strict: boolean }): { regexp: RegExp; keys: { name: string }[] };
};

/** The express-openapi-validator release this adapter is written against: its internals move between releases. */
export const SUPPORTED_VALIDATOR_VERSION = "5.6.2";

/**
 * A project that forced another release (overrides, --legacy-peer-deps) is told at start-up, not
 * by wrong answers later: the peer dependency is pinned because the adapter reaches into EOV.
 */
export function checkValidatorVersion(installed: string = (requireFromValidator("../package.json") as { version: string }).version): void {
  if (installed !== SUPPORTED_VALIDATOR_VERSION) {
    throw new ServerConfigError(
      "express-openapi-validator",
      `The server kit needs express-openapi-validator ${SUPPORTED_VALIDATOR_VERSION} exactly (it uses the validator's internal modules); ${installed} is installed. Run: npm install express-openapi-validator@${SUPPORTED_VALIDATOR_VERSION}`,
    );
  }
}

/** The kit's validator options: all request errors at once, unknown query parameters refused, responses validated. */
export function validatorOptions(spec: OpenApiDocument): OpenApiValidatorOpts {
  return {
    apiSpec: spec as never,
    validateApiSpec: false,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    validateResponses: { allErrors: true },
    validateSecurity: false,
    validateFormats: true,
    fileUploader: false,
  };
}

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
 * (checked by test/sandbox/fast-paths.test.ts), after some 30 ms of crawling.
 */
class SpecOnlyFramework extends OpenAPIFramework {
  override async initialize(visitor: Visitor): Promise<never> {
    const self = this as unknown as FrameworkInternals;
    const apiDoc = (typeof self.args.apiDoc === "object" && self.args.apiDoc !== null ? self.args.apiDoc : await self.loadSpec(self.args.apiDoc, self.args.$refParser)) as { servers?: unknown[] };
    const basePaths = [...new Set(self.getBasePathsFromServers(apiDoc.servers).flatMap((basePath) => basePath.all()))];
    self.sortApiDocTags(apiDoc);
    visitor.visitApi?.({ basePaths, getApiDoc: () => apiDoc });
    return { apiDoc, basePaths } as never;
  }
}

// A local reference EOV resolves the same way through either of its paths (Ajv's getSchema or
// lodash.get of the dotted path): "#/" and segments without ".", "[", "]" or "~".
const PLAIN_LOCAL_REF = /^#(\/[^/.[\]~]+)+$/;

/**
 * Fills EOV's SchemaPreprocessor's cache of resolved references with their targets, found by
 * JSON pointer. EOV resolves a reference with Ajv's getSchema, which answers the very same
 * object but compiles it first: some 70 ms for the signed spec, all of it thrown away (the
 * preprocessor's Ajv is not the one that validates). A target that is itself a reference, or a
 * reference of another form, is left to EOV.
 */
export function prefillResolvedReferences(preprocessor: SchemaPreprocessor, apiDoc: unknown): void {
  const cache = (preprocessor as unknown as { resolvedSchemaCache?: Map<string, unknown> }).resolvedSchemaCache;
  if (!(cache instanceof Map)) return;
  const target = (ref: string): unknown => {
    let node: unknown = apiDoc;
    for (const segment of ref.slice(2).split("/")) {
      if (typeof node !== "object" || node === null || !Object.hasOwn(node, segment)) return undefined;
      node = (node as Record<string, unknown>)[segment];
    }
    return node;
  };
  const seen = new Set<object>();
  const visit = (node: unknown): void => {
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) return node.forEach(visit);
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") {
        if (cache.has(value) || !PLAIN_LOCAL_REF.test(value)) continue;
        const resolved = target(value);
        if (typeof resolved === "object" && resolved !== null && !Array.isArray(resolved) && !("$ref" in resolved)) cache.set(value, resolved);
      } else visit(value);
    }
  };
  visit(apiDoc);
}

interface ValidatorInternals {
  options: { validateResponses: unknown };
  ajvOpts: { preprocessor: unknown; request: unknown; response: unknown };
}

interface RouteEntry {
  expressRoute: string;
  openApiRoute: string;
  pathKey: string;
}

interface CompiledRoute extends RouteEntry {
  regexp: RegExp;
  keys: string[];
}

type Paths = Record<string, Record<string, unknown>>;

/**
 * EOV's applyOpenApiMetadata (5.6.2) with each route's regular expression compiled once per
 * routing mode (strict / case-sensitive) instead of on every request.
 */
export function metadataStep(context: OpenApiContext, responseApiDoc: { paths: Paths } | undefined) {
  const internals = context as unknown as { expressRouteMap: Record<string, { basePath: string }>; openApiRouteMap: Record<string, Record<string, unknown>>; apiDoc: { paths: Paths } };
  // Object.entries order, as EOV walks expressRouteMap.
  const entries: RouteEntry[] = Object.entries(internals.expressRouteMap).map(([expressRoute, methods]) => {
    const pair = context.routePair(expressRoute);
    return { expressRoute, openApiRoute: pair.openApiRoute, pathKey: pair.openApiRoute.substring(methods.basePath.length) };
  });
  const compiled = new Map<string, CompiledRoute[]>();
  const routesFor = (sensitive: boolean, strict: boolean): CompiledRoute[] => {
    const mode = `${sensitive}/${strict}`;
    let routes = compiled.get(mode);
    if (!routes) {
      routes = entries.map((entry) => {
        const { regexp, keys } = pathToRegexp(entry.expressRoute, { sensitive, strict });
        return { ...entry, regexp, keys: keys.map((key) => key.name) };
      });
      compiled.set(mode, routes);
    }
    return routes;
  };

  // The route and decoded parameters of a path, per routing mode; bounded (paths carry ids).
  type Found = { route: CompiledRoute; values: string[] } | "none" | "malformed";
  const found = new Map<string, Found>();
  const FOUND_LIMIT = 10_000;

  function find(routes: CompiledRoute[], path: string, mode: string): Found {
    const key = `${mode}\n${path}`;
    let result = found.get(key);
    if (result === undefined) {
      result = "none";
      for (const route of routes) {
        const matched = route.regexp.exec(path);
        if (!matched) continue;
        try {
          result = { route, values: matched.slice(1).map((value) => decodeURIComponent(value)) };
        } catch {
          result = "malformed";
        }
        break;
      }
      if (found.size >= FOUND_LIMIT) found.clear();
      found.set(key, result);
    }
    return result;
  }

  function lookupRoute(req: Request) {
    const path = (context.useRequestUrl ? req.url : req.originalUrl).split("?")[0] ?? "";
    const method = req.method.toLowerCase();
    const sensitive = !!req.app.enabled("case sensitive routing");
    const strict = !!req.app.enabled("strict routing");
    const result = find(routesFor(sensitive, strict), path, `${sensitive}/${strict}`);
    if (result === "none") return null;
    if (result === "malformed") throw new BadRequest({ path: req.path, message: "malformed uri'" });
    const { route, values } = result;
    // A fresh object each time: the request validator coerces path parameters in place.
    const pathParams: Record<string, string> = {};
    route.keys.forEach((key, i) => (pathParams[key] = values[i] as string));
    return {
      schema: internals.apiDoc.paths[route.pathKey]?.[method],
      responseSchema: responseApiDoc?.paths[route.pathKey]?.[method],
      expressRoute: route.expressRoute,
      openApiRoute: route.openApiRoute,
      pathParams,
    };
  }

  return (req: Request): void => {
    const path = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
    if (context.shouldIgnoreRoute(path)) return;
    const matched = lookupRoute(req);
    if (matched) {
      if (!matched.schema) {
        if (context.ignoreUndocumented) return;
        throw new MethodNotAllowed({
          path: req.path,
          message: `${req.method} method not allowed`,
          headers: {
            Allow: Object.keys(internals.openApiRouteMap[matched.openApiRoute] ?? {})
              .filter((key) => httpMethods.has(key.toLowerCase()))
              .join(", "),
          },
        });
      }
      const openapi: OpenApiRequestMetadata = {
        expressRoute: matched.expressRoute,
        openApiRoute: matched.openApiRoute,
        pathParams: matched.pathParams,
        schema: matched.schema as OpenApiRequestMetadata["schema"],
        serial: context.serial,
      };
      if (responseApiDoc) openapi._responseSchema = matched.responseSchema;
      (req as Request & { openapi?: OpenApiRequestMetadata }).openapi = openapi;
      req.params = matched.pathParams;
    } else if (context.isManagedRoute(path) && !context.ignoreUndocumented) {
      throw new NotFound({ path: req.path, message: "not found" });
    }
  };
}

export interface SpecValidator {
  /** Express middleware: matches the operation, validates the request, hooks response validation. */
  handle: RequestHandler;
  /** Settles once the spec is loaded and preprocessed (operation validators compile on first use). */
  ready: Promise<void>;
}

/** What the validator is built from: EOV's options object, its loaded and preprocessed spec, its route context. */
export interface PreparedSpec {
  validator: OpenApiValidator;
  context: OpenApiContext;
  responseApiDoc: { paths: Paths };
}

/**
 * Loads a spec as EOV's middleware() does (options first, then the loader over a copy of the
 * spec, then the schema preprocessor), less the meta-schema and the throw-away compilations.
 * `prefill` false leaves the preprocessor to resolve references itself (for comparison in tests).
 */
export async function prepareSpec(spec: OpenApiDocument, options: { prefill?: boolean } = {}): Promise<PreparedSpec> {
  const validator = new OpenApiValidator(validatorOptions(spec));
  const internals = validator as unknown as ValidatorInternals;
  const loaderArgs = { apiDoc: structuredClone(spec) as never, validateApiSpec: false, $refParser: { mode: "bundle" as const } };
  const loader = new OpenApiSpecLoader(loaderArgs);
  (loader as unknown as { framework: OpenAPIFramework }).framework = new SpecOnlyFramework(loaderArgs);
  const loaded: Spec = await loader.load();
  const preprocessor = new SchemaPreprocessor(loaded.apiDoc, internals.ajvOpts.preprocessor as never, internals.options.validateResponses as never);
  if (options.prefill !== false) prefillResolvedReferences(preprocessor, loaded.apiDoc);
  const responseApiDoc = preprocessor.preProcess().apiDocRes as unknown as { paths: Paths };
  const context = new OpenApiContext(loaded, undefined as never, false, false);
  return { validator, context, responseApiDoc };
}

export function createSpecValidator(spec: OpenApiDocument, name?: SpecName): SpecValidator {
  checkValidatorVersion();
  type Steps = { metadata: (req: Request) => void; arrays: (req: Request) => void; request: RequestHandler; response: AnswerCheck };
  let steps: Steps | undefined;
  let failure: unknown;
  const ready = prepareSpec(spec).then(
    ({ validator, context, responseApiDoc }) => {
      const internals = validator as unknown as ValidatorInternals;
      steps = {
        metadata: metadataStep(context, responseApiDoc),
        arrays: createArrayLimitCheck(context.apiDoc as unknown as Record<string, unknown>),
        // What OpenApiValidator's private requestValidationMiddleware builds, with the fast path.
        request: requestStep(new RequestValidator(context.apiDoc as never, internals.ajvOpts.request as never), context.apiDoc as unknown as Parameters<typeof requestStep>[1]),
        // What OpenApiValidator's private responseValidationMiddleware builds, hooked more cheaply.
        response: responseCheck(new ResponseValidator(responseApiDoc as never, internals.ajvOpts.response as never, internals.options.validateResponses as never, context.serial)),
      };
    },
    (error: unknown) => {
      failure = error;
    },
  );

  function run(current: Steps, req: Request, res: Response, next: NextFunction): void {
    let passed = false;
    let failed: unknown;
    try {
      current.metadata(req);
      const openapi = (req as Request & { openapi?: OpenApiRequestMetadata }).openapi;
      if (openapi) {
        const state = requestState(res);
        state.operationId = openapi.schema.operationId;
        if (name !== undefined) state.spec = name;
        state.route = openapi.openApiRoute;
        // A copy: the request validator coerces the parameters in place.
        for (const key in openapi.pathParams) {
          state.pathText = { ...openapi.pathParams };
          break;
        }
      }
      canonicalContentType(req);
      // Oversized arrays are refused by their count before the validator lists item errors.
      current.arrays(req);
      current.request(req, res, (error?: unknown) => {
        if (error) failed = error;
        else passed = true;
      });
    } catch (error) {
      return next(error);
    }
    if (failed !== undefined) return next(failed);
    if (!passed) return next(new Error("the request validator neither passed nor failed"));
    requestState(res).answerCheck = current.response;
    next();
  }

  const handle: RequestHandler = (req, res, next) => {
    if (steps) return run(steps, req, res, next);
    void ready.then(() => {
      if (steps) run(steps, req, res, next);
      else next(failure ?? new Error("the OpenAPI validator could not load its spec"));
    });
  };
  return { handle, ready };
}
