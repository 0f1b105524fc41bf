// The shared tail of every interface's pipeline: express-openapi-validator configured once,
// and a dispatcher that calls the handler of the operationId the validator matched.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { Variant } from "../envelope.js";
import { respondSuccess } from "../envelope.js";
import { signedError } from "../errors.js";
import { parseIdText } from "../int64.js";
import { compilePathTemplate, loadBundle, type PathTemplate, type SpecName } from "../../contract/index.js";
import { createSpecValidator, type SpecValidator } from "../validator.js";

interface OpenApiRequestInfo {
  openApiRoute: string;
  schema: { operationId?: string };
}

type RequestWithOpenApi = Request & { openapi?: OpenApiRequestInfo };

const sharedValidators = new Map<SpecName, SpecValidator>();

function validatorFor(name: SpecName): SpecValidator {
  let validator = sharedValidators.get(name);
  if (!validator) {
    validator = createSpecValidator(loadBundle(name));
    sharedValidators.set(name, validator);
  }
  return validator;
}

/**
 * express-openapi-validator over a bundled spec (validator.ts): requests (all errors, unknown
 * query parameters refused) and responses. Security is not its job: the signature or bearer
 * check ran once before it. A response that fails validation is recorded for the exact-JSON
 * writer, which then answers 100099 instead (envelope.ts).
 *
 * Built once per process on first use and shared by every sandbox (it holds no sandbox state).
 * Loading a spec takes some 50 ms of CPU, so a sandbox listens at once and warms its
 * validators up right after (warmUpValidators); each operation's schemas compile on its
 * first request.
 */
export function specValidator(name: SpecName): RequestHandler {
  let handle: RequestHandler | undefined;
  return (req, res, next) => {
    handle ??= validatorFor(name).handle;
    handle(req, res, next);
  };
}

let warmUp: Promise<void> | undefined;

/**
 * Loads every spec's validator, the signed one first, each in its own turn of the event loop
 * so that requests arriving meanwhile are not held up behind all three; settles when all are ready.
 */
export function warmUpValidators(): Promise<void> {
  warmUp ??= (async () => {
    for (const name of ["signed", "keyed", "sandbox-control"] as const) {
      await validatorFor(name).ready;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
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

const routePatterns = new Map<string, PathTemplate>();

/** The route's template as Express matched it: letters of any case, one trailing "/" allowed. */
function routePattern(openApiRoute: string): PathTemplate {
  let pattern = routePatterns.get(openApiRoute);
  if (!pattern) {
    pattern = compilePathTemplate(openApiRoute, { caseInsensitive: true, trailingSlash: true });
    routePatterns.set(openApiRoute, pattern);
  }
  return pattern;
}

function makeCall(req: RequestWithOpenApi, res: Response): OperationCall {
  // The raw URL is read only when a handler asks for an id or a path parameter.
  let rawQuery: URLSearchParams | undefined;
  let pathParams: Map<string, string> | undefined;
  const params = (): Map<string, string> => {
    if (!pathParams) {
      const rawPath = req.originalUrl.split("?", 1)[0] ?? "";
      const pattern = routePattern(req.openapi?.openApiRoute ?? "");
      const match = pattern.regexp.exec(rawPath);
      pathParams = new Map(pattern.names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? "")]));
    }
    return pathParams;
  };
  const rawValue = (location: "path" | "query", name: string): string | undefined => {
    if (location === "path") return params().get(name);
    if (!rawQuery) {
      const at = req.originalUrl.indexOf("?");
      rawQuery = new URLSearchParams(at < 0 ? "" : req.originalUrl.slice(at + 1));
    }
    return rawQuery.get(name) ?? undefined;
  };
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
    pathParam: (name) => params().get(name) ?? "",
    get origin() {
      return `${req.protocol}://${req.get("host") ?? "127.0.0.1"}`;
    },
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
      const result = handler(makeCall(req, res));
      // Most handlers answer at once: no promise to wait for.
      respondSuccess(res, variant, result instanceof Promise ? await result : result);
    } catch (error) {
      next(error);
    }
  };
}

/** Whatever no operation matched. */
export function pathNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(signedError("PATH_NOT_FOUND", "No operation exists at this path."));
}
