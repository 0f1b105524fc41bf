// The tail of every interface's pipeline: express-openapi-validator configured once per spec,
// and a dispatcher that calls the handler of the operationId the validator matched with one
// typed input (body, query, path, request facts) and answers its result as the success envelope.
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { loadBundle, type SpecName } from "../contract/index.js";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { sendSuccess, type AnswerWriter } from "./answer.js";
import { keyedError, RefusalError, signedError } from "./errors.js";
import { requestState, type RequestState } from "./state.js";
import { checkValidatorVersion, createSpecValidator, type SpecValidator } from "./eov/index.js";

const sharedValidators = new Map<SpecName, SpecValidator>();

function validatorFor(name: SpecName): SpecValidator {
  let validator = sharedValidators.get(name);
  if (!validator) {
    validator = createSpecValidator(loadBundle(name), name);
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

function buildInput(req: Request, res: Response, state: RequestState, facts: RequestFactsOf, refuse: NonNullable<DispatchInput["refuse"]>): DispatchInput {
  const input: DispatchInput = {
    refuse,
    body: state.body,
    query: state.query ?? {},
    path: state.path ?? {},
    request: req,
    get origin() {
      return `${req.protocol}://${req.get("host") ?? "127.0.0.1"}`;
    },
  };
  return Object.assign(input, facts(req, res));
}

export interface DispatchOptions {
  spec: SpecName;
  writer: AnswerWriter;
  handlers: Readonly<Record<string, DispatchHandler | undefined>>;
  facts: RequestFactsOf;
}

/** Calls the handler of the matched operationId and answers its result as the success envelope. */
export function dispatchOperations(options: DispatchOptions) {
  const declared = declaredErrorsOf(options.spec);
  const refuse = (options.spec === "keyed" ? keyedError : signedError) as NonNullable<DispatchInput["refuse"]>;
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const state = requestState(res);
    const operationId = state.operationId;
    if (operationId === undefined) return next();
    const handler = Object.hasOwn(options.handlers, operationId) ? options.handlers[operationId] : undefined;
    // Only a table built with `partial: true` can lack one (router.ts checks the others).
    if (!handler) return next(signedError("PATH_NOT_FOUND", `This server does not implement ${operationId} (${req.method} ${state.route ?? req.path}).`));
    try {
      const returned = handler(buildInput(req, res, state, options.facts, refuse));
      // Most handlers answer at once: no promise to wait for.
      const result = returned instanceof Promise ? await returned : returned;
      // A handler may return its refusal as well as throw it.
      if (result instanceof RefusalError) throw result;
      sendSuccess(options.writer, res, result);
    } catch (error) {
      next(error instanceof RefusalError && declared && !declared(operationId).has(error.registryName) ? undeclaredRefusal(operationId, error) : error);
    }
  };
}

/** Whatever no operation matched. */
export function pathNotFound(_req: Request, _res: Response, next: NextFunction): void {
  next(signedError("PATH_NOT_FOUND", "No operation exists at this path."));
}
