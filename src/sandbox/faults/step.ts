// Where faults meet requests: a step of the signed and key-based routers (the kit's `checks`,
// after the signature, validation and the sandbox's own checks, right before the operation). So
// a fault meets only requests that reach the operation: a forged X-App-Key cannot use up
// another app's fault, and a request refused before it keeps its refusal. The step finds the fault
// (the X-Sandbox-Fault header first, else the oldest matching one of the table), marks the
// request for the dashboard, and then either answers in the operation's place (`before`) or
// lets the operation run and takes over its answer when it is written (`after`).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { operationRoutes, type Dialect } from "../../contract/index.js";
import { keyedError, requestState, signedError } from "../../server/index.js";
import type { SandboxContext } from "../context.js";
import { isAnsweringKind, sendFaultAnswer } from "./answers.js";
import { FAULT_HEADER, parseFaultHeader } from "./header.js";
import type { FaultMark } from "./mark.js";
import type { FaultBehaviour, FaultHitRecord } from "./table.js";

/** How long `timeout` holds a connection when the fault names no delayMs. */
export const DEFAULT_TIMEOUT_HOLD_MS = 120_000;

interface ArmedFault {
  behaviour: FaultBehaviour;
  mark: FaultMark;
  hit: FaultHitRecord;
  /** For the messages: "sandbox fault flt_3" or "the X-Sandbox-Fault header". */
  name: string;
}

const pathOf = (url: string) => {
  const query = url.indexOf("?");
  return query === -1 ? url : url.slice(0, query);
};

function refusal(dialect: Dialect, message: string) {
  return dialect === "keyed" ? keyedError("KEYED_VALIDATION_FAILED", message) : signedError("VALIDATION_FAILED", message);
}

/** The fault this request meets, if any, with its use counted and its hit recorded. */
async function armFault(ctx: SandboxContext, req: Request, res: Response, dialect: Dialect, operationId: string): Promise<ArmedFault | undefined> {
  const appKey = dialect === "signed" ? requestState(res).appKey : undefined;
  const hit: FaultHitRecord = { time: ctx.clock.now(), method: req.method, path: pathOf(req.originalUrl).slice(0, 1024), appKey: appKey ?? null, carriedOut: false, operationCode: null, status: null, code: null };
  const header = req.headers[FAULT_HEADER.toLowerCase()];
  if (header !== undefined) {
    const parsed = parseFaultHeader(Array.isArray(header) ? header.join(", ") : header, operationId);
    if (!parsed.ok) throw refusal(dialect, parsed.reason);
    return { behaviour: parsed.behaviour, hit, name: `the ${FAULT_HEADER} header`, mark: { ...parsed.behaviour, faultId: null, source: "header", carriedOut: false, operationCode: null } };
  }
  const fault = await ctx.scenarios.faults.take(operationId, appKey, hit);
  if (!fault) return undefined;
  const { kind, when, delayMs, retryAfterSeconds } = fault;
  const behaviour = { kind, when, delayMs, retryAfterSeconds };
  return { behaviour, hit, name: `sandbox fault ${fault.faultId}`, mark: { ...behaviour, faultId: fault.faultId, source: "control", carriedOut: false, operationCode: null } };
}

/** No answer: the connection stays open until the client gives up, or the hold ends, then it is closed. */
function hold(ctx: SandboxContext, req: Request, holdMs: number): void {
  const cancel = ctx.scenarios.later(holdMs, () => req.socket.destroy());
  req.socket.once("close", cancel);
}

/** Waits `ms` (none for 0), on a timer the sandbox's close stops. */
function after(ctx: SandboxContext, ms: number, task: () => void): void {
  if (ms <= 0) return task();
  ctx.scenarios.later(ms, task);
}

/** The fault acts in place of the operation's answer, `about` saying what became of the operation. */
function act(ctx: SandboxContext, req: Request, res: Response, dialect: Dialect, armed: ArmedFault, about: string, send: () => void): void {
  const { behaviour } = armed;
  switch (behaviour.kind) {
    case "timeout":
      return hold(ctx, req, behaviour.delayMs ?? DEFAULT_TIMEOUT_HOLD_MS);
    case "reset-connection":
      return after(ctx, behaviour.delayMs ?? 0, () => req.socket.destroy());
    case "slow":
      return after(ctx, behaviour.delayMs ?? 0, send);
    default:
      if (isAnsweringKind(behaviour.kind)) {
        const kind = behaviour.kind;
        after(ctx, behaviour.delayMs ?? 0, () => {
          if (!res.headersSent && !res.destroyed) sendFaultAnswer(res, dialect, { ...behaviour, kind }, about);
        });
      }
  }
}

/**
 * The operation runs; when it writes its answer (every answer of the kit ends in one res.end,
 * headers not yet sent), the code it answered is noted and, for `after`, the fault takes over:
 * it sends its own answer, sends the real one late, or sends nothing. A `slow` fault `before`
 * has already waited: its answer goes out as written.
 */
function watchAnswer(ctx: SandboxContext, req: Request, res: Response, dialect: Dialect, armed: ArmedFault): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = function endAfterFault(this: Response, ...args: unknown[]): Response {
    res.end = end as Response["end"];
    const code = requestState(res).envelopeCode;
    armed.hit.operationCode = armed.mark.operationCode = typeof code === "number" ? code : null;
    // headersSent: not an answer of the kit's (those never send headers first), nothing to replace.
    if (armed.behaviour.when === "before" || res.headersSent) return end(...args);
    const about = `(${armed.name}: ${armed.behaviour.kind} after ${requestState(res).operationId ?? "the operation"}, which was carried out and answered code ${armed.mark.operationCode ?? "?"}; this answer replaced that one.)`;
    act(ctx, req, res, dialect, armed, about, () => void end(...args));
    return res;
  } as Response["end"];
}

export function faultStep(ctx: SandboxContext, dialect: Dialect): RequestHandler {
  const routes = operationRoutes(dialect);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (req.headers[FAULT_HEADER.toLowerCase()] === undefined && !ctx.scenarios.faults.hasActive()) return next();
    const operationId = routes(req.method, pathOf(req.originalUrl))?.operationId;
    if (operationId === undefined) return next();
    const armed = await armFault(ctx, req, res, dialect, operationId);
    if (!armed) return next();
    requestState(res).fault = armed.mark;
    res.once("finish", () => {
      armed.hit.status = res.statusCode;
      const code = requestState(res).envelopeCode;
      armed.hit.code = typeof code === "number" ? code : null;
      // A shared store keeps the hit as it ended (the memory table holds this very object).
      if (armed.mark.faultId !== null) {
        ctx.scenarios.faults.finishHit(armed.mark.faultId, armed.hit).catch((error: unknown) => ctx.logger.warn("A fault's hit could not be recorded.", { faultId: armed.mark.faultId, error }));
      }
    });
    const { behaviour } = armed;
    if (behaviour.when === "after" || behaviour.kind === "slow") {
      armed.hit.carriedOut = armed.mark.carriedOut = true;
      watchAnswer(ctx, req, res, dialect, armed);
    }
    if (behaviour.when === "after") return next();
    // A slow operation runs late, whether or not the client is still there (as a server's would).
    if (behaviour.kind === "slow") return act(ctx, req, res, dialect, armed, "", () => next());
    act(ctx, req, res, dialect, armed, `(${armed.name}: ${behaviour.kind} before ${operationId}, which was not carried out.)`, () => {});
  };
}
