// The shared tail of every interface's pipeline: express-openapi-validator configured once,
// and a dispatcher that calls the handler of the operationId the validator matched.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import type { Variant } from "../envelope.js";
import { respondSuccess } from "../envelope.js";
import { signedError } from "../errors.js";
import { parseIdText } from "../int64.js";
import { loadSpec, type OpenApiDocument, type SpecName } from "../spec.js";

interface OpenApiRequestInfo {
  openApiRoute: string;
  schema: { operationId?: string };
}

type RequestWithOpenApi = Request & { openapi?: OpenApiRequestInfo };

/**
 * express-openapi-validator over a bundled spec: requests (all errors, unknown query
 * parameters refused) and responses. Security is not its job: the signature or bearer check
 * ran once before it. A response that fails validation is recorded for the exact-JSON writer,
 * which then answers 100099 instead (envelope.ts).
 */
export function openApiValidator(spec: OpenApiDocument): RequestHandler[] {
  return OpenApiValidator.middleware({
    apiSpec: spec as never,
    validateApiSpec: false,
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    validateResponses: {
      allErrors: true,
      onError: (err, _body, req) => {
        const res = (req as Request).res;
        if (res) res.locals.responseValidationError = err;
      },
    },
    validateSecurity: false,
    validateFormats: true,
  }) as unknown as RequestHandler[];
}

interface SharedValidator {
  router: RequestHandler;
  /** Settles once the validator has compiled its spec. */
  ready: Promise<void>;
}

const sharedValidators = new Map<SpecName, SharedValidator>();

function validatorFor(name: SpecName): SharedValidator {
  let validator = sharedValidators.get(name);
  if (!validator) {
    const middlewares = openApiValidator(loadSpec(name));
    const router = express.Router();
    router.use(middlewares);
    // Every middleware of the validator first awaits the compiled spec, then calls next; the
    // first one needs nothing of the request but an app to register path parameters on (the
    // sandbox routes by operationId, so they are not needed).
    const ready = new Promise<void>((resolve) => {
      try {
        const first = middlewares[0];
        if (!first) return resolve();
        first({ app: { param: () => {} } } as unknown as Request, {} as Response, () => resolve());
      } catch {
        resolve();
      }
    });
    validator = { router, ready };
    sharedValidators.set(name, validator);
  }
  return validator;
}

/**
 * The validator of a spec, built once per process on first use and shared by every sandbox
 * (it holds no sandbox state). Building one compiles the spec (0.1 to 0.3 s of CPU), so a
 * sandbox listens at once and warms its validators up right after (warmUpValidators).
 */
export function specValidator(name: SpecName): RequestHandler {
  return (req, res, next) => validatorFor(name).router(req, res, next);
}

let warmUp: Promise<void> | undefined;

/** Compiles every validator, one after the other (the signed one first); settles when all are ready. */
export function warmUpValidators(): Promise<void> {
  warmUp ??= (async () => {
    for (const name of ["signed", "keyed", "sandbox-control"] as const) await validatorFor(name).ready;
  })();
  return warmUp;
}

/** What a handler gets: the validated body and query, and exact ids read from the raw URL. */
export interface OperationCall {
  req: Request;
  res: Response;
  /** The validated body with defaults applied and exact (bigint) ids; {} when none was sent. */
  body: Record<string, any>;
  /** The validated query with defaults applied. Numbers are the validator's; read ids with id(). */
  query: Record<string, any>;
  /** An int64 path or query parameter, read from the raw URL text. */
  id(location: "path" | "query", name: string): bigint;
  optionalId(location: "path" | "query", name: string): bigint | undefined;
  /** Raw text of a path parameter. */
  pathParam(name: string): string;
  /** Scheme, host and port the request was addressed to. */
  origin: string;
}

export type OperationHandler = (call: OperationCall) => unknown;

const routePatterns = new Map<string, { regexp: RegExp; names: string[] }>();

function routePattern(openApiRoute: string): { regexp: RegExp; names: string[] } {
  let pattern = routePatterns.get(openApiRoute);
  if (!pattern) {
    const names: string[] = [];
    const source = openApiRoute
      .split(/(\{[^}]+\})/)
      .map((part) => {
        const param = /^\{([^}]+)\}$/.exec(part);
        if (param) {
          names.push(param[1] ?? "");
          return "([^/]+)";
        }
        return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      })
      .join("");
    pattern = { regexp: new RegExp(`^${source}/?$`, "i"), names };
    routePatterns.set(openApiRoute, pattern);
  }
  return pattern;
}

function makeCall(req: RequestWithOpenApi, res: Response): OperationCall {
  const [rawPath = "", ...rest] = req.originalUrl.split("?");
  const rawQuery = new URLSearchParams(rest.join("?"));
  const pattern = routePattern(req.openapi?.openApiRoute ?? "");
  const match = pattern.regexp.exec(rawPath);
  const pathParams = new Map(pattern.names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? "")]));
  const rawValue = (location: "path" | "query", name: string) => (location === "path" ? pathParams.get(name) : rawQuery.get(name) ?? undefined);
  const readId = (location: "path" | "query", name: string): bigint | undefined => {
    const text = rawValue(location, name);
    if (text === undefined) return undefined;
    const value = parseIdText(text);
    if (typeof value === "string") throw signedError("VALIDATION_FAILED", `${location}.${name} ${value}`);
    return value;
  };
  return {
    req,
    res,
    body: (res.locals.body as Record<string, any> | undefined) ?? {},
    query: req.query as Record<string, any>,
    id(location, name) {
      const value = readId(location, name);
      if (value === undefined) throw signedError("VALIDATION_FAILED", `${location}.${name} is required`);
      return value;
    },
    optionalId: readId,
    pathParam: (name) => pathParams.get(name) ?? "",
    origin: `${req.protocol}://${req.get("host") ?? "127.0.0.1"}`,
  };
}

/** Calls the handler of the matched operationId and answers its result as the success envelope. */
export function dispatchOperations(variant: Variant, handlers: Record<string, OperationHandler>) {
  return async (req: RequestWithOpenApi, res: Response, next: NextFunction): Promise<void> => {
    const operationId = req.openapi?.schema?.operationId;
    if (operationId === undefined) return next();
    const handler = handlers[operationId];
    if (!handler) return next(new Error(`no handler for operation ${operationId}`));
    try {
      const data = await handler(makeCall(req, res));
      respondSuccess(res, variant, data);
    } catch (error) {
      next(error);
    }
  };
}

/** Whatever no operation matched. */
export function pathNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(signedError("PATH_NOT_FOUND", "No operation exists at this path."));
}
