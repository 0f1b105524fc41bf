// The tail of every interface's pipeline: express-openapi-validator configured once per spec,
// and a dispatcher that calls the handler of the operationId the validator matched with one
// typed input (body, query, path, request facts) and answers its result as the success envelope.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { compilePathTemplate, loadBundle, schemasFor, type Dialect, type PathTemplate, type SpecName } from "../contract/index.js";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { respondSuccess } from "./envelope.js";
import { keyedError, RefusalError, signedError } from "./errors.js";
import { parseIdText } from "./int64.js";
import { requestState } from "./state.js";
import { checkValidatorVersion, createSpecValidator, type SpecValidator } from "./validator.js";

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
 * express-openapi-validator over a bundled spec (validator.ts): routing, requests (all errors,
 * unknown query parameters refused) and responses. Security is not its job: the signature or
 * bearer check ran once before it. A response that fails validation is recorded for the
 * exact-JSON writer, which then answers 100099 instead (envelope.ts).
 *
 * Built once per process on first use and shared by every router (it holds no per-server
 * state). Loading a spec takes some 50 ms of CPU, so a server may listen at once and warm the
 * validators up right after (warmUpValidators); each operation's schemas compile on its first request.
 */
export function specValidator(name: SpecName): RequestHandler {
  // At start-up, not on the first request: another release of the validator is refused here.
  checkValidatorVersion();
  let handle: RequestHandler | undefined;
  return (req, res, next) => {
    handle ??= validatorFor(name).handle;
    handle(req, res, next);
  };
}

const warmUps = new Map<string, Promise<void>>();

/** Loads the validators of these specs, each in its own turn of the event loop; settles when all are ready. */
export function warmUpValidators(names: readonly SpecName[] = ["signed", "keyed"]): Promise<void> {
  const key = names.join(",");
  let warmUp = warmUps.get(key);
  if (!warmUp) {
    warmUp = (async () => {
      for (const name of names) {
        await validatorFor(name).ready;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    })();
    warmUps.set(key, warmUp);
  }
  return warmUp;
}

/** What the dispatcher hands every handler; the typed tables (handlers.ts) narrow it per operation. */
export interface DispatchInput {
  body: unknown;
  query: Record<string, unknown>;
  path: Record<string, unknown>;
  origin: string;
  request: Request;
  /** Builds the refusal of a registry error (signedError, or keyedError on the key-based interface). */
  refuse?: (name: never, message: string, headers?: Record<string, string>) => RefusalError;
  [fact: string]: unknown;
}

export type DispatchHandler = (input: DispatchInput) => unknown;

/** Adds the request facts of an interface (appKey, apiKey) to a handler's input. */
export type RequestFactsOf = (req: Request, res: Response) => Record<string, unknown>;

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

/** The int64 path and query parameters of each operation, read from the spec once. */
function int64ParametersOf(spec: SpecName): (operationId: string) => { path: string[]; query: string[] } {
  const cache = new Map<string, { path: string[]; query: string[] }>();
  return (operationId) => {
    let found = cache.get(operationId);
    if (!found) {
      found = { path: [], query: [] };
      for (const parameter of schemasFor(spec).parameters(operationId)) {
        if (parameter.schema?.format !== "int64") continue;
        if (parameter.in === "path") found.path.push(parameter.name);
        else if (parameter.in === "query") found.query.push(parameter.name);
      }
      cache.set(operationId, found);
    }
    return found;
  };
}

function readId(location: "path" | "query", name: string, text: string): bigint {
  const value = parseIdText(text);
  if (typeof value === "string") throw signedError("VALIDATION_FAILED", `${location}.${name} ${value}`);
  return value;
}

/** Path parameters from the raw URL (the validator coerced its own copy to Numbers). */
function rawPathParams(req: RequestWithOpenApi): Map<string, string> {
  const rawPath = req.originalUrl.split("?", 1)[0] ?? "";
  const pattern = routePattern(req.openapi?.openApiRoute ?? "");
  const match = pattern.regexp.exec(rawPath);
  return new Map(pattern.names.map((name, i) => [name, decodeURIComponent(match?.[i + 1] ?? "")]));
}

/**
 * The raw text of a query parameter, as URLSearchParams.get reads it (the first occurrence,
 * "+" as a space, percent-decoding). A query without "+" or "%" is read as is, without building
 * the whole URLSearchParams.
 */
function rawQueryValue(rawQuery: string, name: string): string | null {
  if (rawQuery.includes("+") || rawQuery.includes("%")) return new URLSearchParams(rawQuery).get(name);
  for (const pair of rawQuery.split("&")) {
    const at = pair.indexOf("=");
    if ((at < 0 ? pair : pair.slice(0, at)) === name) return at < 0 ? "" : pair.slice(at + 1);
  }
  return null;
}

/**
 * The registry names each operation declares (appliesTo: its operationId or all-signed /
 * all-keyed), for the run-time half of the check whose compile-time half is the handler types
 * (generated/<spec>.handlers.ts): a thrown refusal of an undeclared error is a server bug.
 * Undefined for the control API, whose codes are declared by its own spec.
 */
function declaredErrorsOf(spec: SpecName): ((operationId: string) => ReadonlySet<string>) | undefined {
  if (spec !== "signed" && spec !== "keyed") return undefined;
  const registry: Record<string, { appliesTo: string | readonly string[] }> = spec === "signed" ? SignedErrors : KeyedErrors;
  const cache = new Map<string, ReadonlySet<string>>();
  return (operationId) => {
    let names = cache.get(operationId);
    if (!names) {
      names = new Set(Object.entries(registry).filter(([, entry]) => entry.appliesTo === `all-${spec}` || (Array.isArray(entry.appliesTo) && entry.appliesTo.includes(operationId))).map(([name]) => name));
      cache.set(operationId, names);
    }
    return names;
  };
}

/** A refusal the operation does not declare becomes an internal error that names the handler as the culprit. */
function undeclaredRefusal(operationId: string, refusal: RefusalError): Error {
  return new Error(
    `The handler of ${operationId} refused with ${refusal.registryName} (${refusal.entry.code}), an error ${operationId} does not declare (openapi/errors.yaml appliesTo); answered 100099 instead. The handler's message: ${refusal.message}`,
  );
}

function buildInput(req: RequestWithOpenApi, res: Response, int64: { path: string[]; query: string[] }, facts: RequestFactsOf, refuse: NonNullable<DispatchInput["refuse"]>): DispatchInput {
  // The validated (and coerced) path values; int64 ids exact from the raw text.
  const path: Record<string, unknown> = { ...req.params };
  if (int64.path.length > 0) {
    const raw = rawPathParams(req);
    for (const name of int64.path) {
      const text = raw.get(name);
      if (text !== undefined) path[name] = readId("path", name, text);
    }
  }
  const query: Record<string, unknown> = { ...(req.query as Record<string, unknown>) };
  if (int64.query.length > 0) {
    const at = req.originalUrl.indexOf("?");
    const rawQuery = at < 0 ? "" : req.originalUrl.slice(at + 1);
    for (const name of int64.query) {
      const text = rawQueryValue(rawQuery, name);
      if (text !== null) query[name] = readId("query", name, text);
    }
  }
  const input: DispatchInput = {
    refuse,
    body: requestState(res).body,
    query,
    path,
    request: req,
    get origin() {
      return `${req.protocol}://${req.get("host") ?? "127.0.0.1"}`;
    },
  };
  return Object.assign(input, facts(req, res));
}

export interface DispatchOptions {
  spec: SpecName;
  dialect: Dialect;
  handlers: Readonly<Record<string, DispatchHandler | undefined>>;
  facts: RequestFactsOf;
}

/** Calls the handler of the matched operationId and answers its result as the success envelope. */
export function dispatchOperations(options: DispatchOptions) {
  const int64 = int64ParametersOf(options.spec);
  const declared = declaredErrorsOf(options.spec);
  const refuse = (options.spec === "keyed" ? keyedError : signedError) as NonNullable<DispatchInput["refuse"]>;
  return async (req: RequestWithOpenApi, res: Response, next: NextFunction): Promise<void> => {
    const operationId = req.openapi?.schema?.operationId;
    if (operationId === undefined) return next();
    const state = requestState(res);
    state.operationId = operationId;
    state.spec = options.spec;
    const handler = Object.hasOwn(options.handlers, operationId) ? options.handlers[operationId] : undefined;
    // Only a table built with `partial: true` can lack one (router.ts checks the others).
    if (!handler) return next(signedError("PATH_NOT_FOUND", `This server does not implement ${operationId} (${req.method} ${req.openapi?.openApiRoute ?? req.path}).`));
    try {
      const returned = handler(buildInput(req, res, int64(operationId), options.facts, refuse));
      // Most handlers answer at once: no promise to wait for.
      const result = returned instanceof Promise ? await returned : returned;
      // A handler may return its refusal as well as throw it.
      if (result instanceof RefusalError) throw result;
      respondSuccess(res, options.dialect, result);
    } catch (error) {
      next(error instanceof RefusalError && declared && !declared(operationId).has(error.registryName) ? undeclaredRefusal(operationId, error) : error);
    }
  };
}

/** Whatever no operation matched. */
export function pathNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(signedError("PATH_NOT_FOUND", "No operation exists at this path."));
}
