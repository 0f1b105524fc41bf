// The control API's fault operations (createFault, listFaults, deleteFault): the body was
// validated against the control spec; what the spec cannot say is checked here (the operation
// exists on an interface faults apply to, the app key is an app of the sandbox).
import type { components } from "../../../generated/sandbox-control.js";
import { schemasFor } from "../../contract/index.js";
import { formatPlatformTime } from "../clock.js";
import type { SandboxContext } from "../context.js";
import { signedError } from "../errors.js";
import { DEFAULT_RETRY_AFTER_SECONDS } from "./answers.js";
import type { FaultRecord } from "./table.js";

type CreateFaultRequest = components["schemas"]["CreateFaultRequest"];

export function faultView(fault: FaultRecord) {
  return {
    faultId: fault.faultId,
    operationId: fault.operationId,
    kind: fault.kind,
    when: fault.when,
    times: fault.times,
    remaining: fault.remaining,
    delayMs: fault.delayMs,
    retryAfterSeconds: fault.retryAfterSeconds,
    appKey: fault.appKey,
    createTime: formatPlatformTime(fault.createTime),
    hits: fault.hits.map((hit) => ({ ...hit, time: formatPlatformTime(hit.time) })),
  };
}

/** Which interface serves an operation: faults apply to the signed and key-based ones only. */
function interfaceOf(operationId: string): "signed" | "keyed" | undefined {
  if (schemasFor("signed").operations.has(operationId)) return "signed";
  if (schemasFor("keyed").operations.has(operationId)) return "keyed";
  return undefined;
}

export async function createFault(ctx: SandboxContext, body: CreateFaultRequest) {
  const served = interfaceOf(body.operationId);
  if (served === undefined) {
    const where = schemasFor("sandbox-control").operations.has(body.operationId) ? " (it is the control API's own; faults apply to the signed and key-based interfaces)" : "";
    throw signedError("VALIDATION_FAILED", `body.operationId ${JSON.stringify(body.operationId)} is not an operation of the signed or key-based interface${where}; e.g. createCashierSession, queryPayment, listAccountMerchants.`);
  }
  const appKey = body.appKey ?? null;
  if (appKey !== null && served === "keyed") {
    throw signedError("VALIDATION_FAILED", `body.appKey: ${body.operationId} is an operation of the key-based interface, whose callers have an API key, not an app key; leave appKey out (the fault then meets every caller's request).`);
  }
  if (appKey !== null && !ctx.records.app(appKey)) {
    throw signedError("VALIDATION_FAILED", `body.appKey ${JSON.stringify(appKey)} is not an app of this sandbox; the fixtures have ${ctx.records.apps().map((app) => app.appKey).join(", ")}.`);
  }
  const fault = await ctx.scenarios.faults.add(
    {
      operationId: body.operationId,
      kind: body.kind,
      when: body.when ?? "before",
      times: body.times ?? 1,
      delayMs: body.delayMs ?? null,
      retryAfterSeconds: body.kind === "rate-limited" || body.kind === "unavailable" ? (body.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS) : null,
      appKey,
    },
    ctx.clock.now(),
  );
  return faultView(fault);
}

export async function listFaults(ctx: SandboxContext, query: { appKey?: string; operationId?: string }) {
  const list = (await ctx.scenarios.faults.list(query)).map(faultView);
  return { list, total: list.length };
}

export async function deleteFault(ctx: SandboxContext, faultId: string) {
  const fault = await ctx.scenarios.faults.delete(faultId);
  if (!fault) throw signedError("FAULT_NOT_FOUND", `faultId: the sandbox holds no fault ${faultId} (deleted already, or dropped by a reset); listFaults shows those there are.`);
  return faultView(fault);
}
