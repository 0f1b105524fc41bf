// GET /sandbox/health: whether this instance's store and nonce store answer, for a load
// balancer or an orchestrator's probe: 200 when both do, 503 (with Retry-After) when one does
// not. No secret and no password is in it. Not enveloped: probes read the status code.
import type { Request, RequestHandler, Response } from "express";
import type { SandboxContext } from "../context.js";
import { healthReport } from "../health.js";
import { STORE_RETRY_AFTER_SECONDS } from "../store-guard.js";
import { requestState } from "../../server/index.js";

export function healthRoute(ctx: SandboxContext): RequestHandler {
  return async (_req: Request, res: Response) => {
    requestState(res).operationId = "getHealth";
    const report = await healthReport(ctx);
    if (report.status !== "ok") res.setHeader("Retry-After", String(STORE_RETRY_AFTER_SECONDS));
    res.status(report.status === "ok" ? 200 : 503).set("Cache-Control", "no-store").json(report);
  };
}
