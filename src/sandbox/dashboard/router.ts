// /sandbox/ui: the dashboard page, its script and stylesheet (served from here, no CDN), the
// state it polls, what its forms offer, and the one action the control API lacks (resend a
// callback). Everything else the page does (pay, advance the clock, set and delete faults,
// redeliver a callback) goes through the control API itself, as same-origin JSON requests.
import express, { type Request, type Response, type Router } from "express";
import type { SandboxContext } from "../context.js";
import { refuseCrossOrigin } from "../site-guard.js";
import { DASHBOARD_CSS, DASHBOARD_HTML, DASHBOARD_JS } from "./page.js";
import type { RequestRecorder } from "./recorder.js";
import { appSecrets, requestDetail } from "./request-view.js";
import { dashboardChoices } from "./choices.js";
import { dashboardState } from "./state.js";
import { requestState } from "../../server/index.js";

const HEADERS = {
  "Cache-Control": "no-store",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
};
// Only this origin's files: no inline script, no remote anything.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Why a state-changing request is refused (CSRF from a web page), or undefined: the control
 * API's own guard (Origin and Sec-Fetch-Site), then JSON only, which no page can send to
 * another origin without a preflight the sandbox never grants.
 */
function sameSiteJson(req: Request, res: Response): string | undefined {
  let refused: string | undefined;
  refuseCrossOrigin(req, res, (error?: unknown) => {
    if (error !== undefined) refused = error instanceof Error ? error.message : String(error);
  });
  if (refused !== undefined) return refused;
  if (!/^application\/json\b/i.test(req.headers["content-type"] ?? "")) return "send Content-Type: application/json";
  return undefined;
}

export function dashboardRouter(ctx: SandboxContext, recorder: RequestRecorder): Router {
  const router = express.Router();
  const send = (type: string, body: string) => (_req: Request, res: Response) => {
    requestState(res).operationId = "dashboard";
    res.set(HEADERS).set("Content-Security-Policy", CSP).type(type).send(body);
  };
  router.get("/", send("html", DASHBOARD_HTML));
  router.get("/dashboard.js", send("text/javascript", DASHBOARD_JS));
  router.get("/dashboard.css", send("text/css", DASHBOARD_CSS));
  router.get("/state", async (_req, res) => {
    const state = await dashboardState(ctx, recorder);
    res.set(HEADERS).json(JSON.parse(JSON.stringify(state, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))));
  });
  // What the forms offer (operations, fault kinds, variants, apps): read once by the page.
  router.get("/choices", (_req, res) => void res.set(HEADERS).json(dashboardChoices(ctx)));
  router.get("/requests/:id", async (req, res) => {
    const kept = /^\d{1,9}$/.test(String(req.params.id)) ? recorder.get(Number(req.params.id)) : undefined;
    if (!kept) return void res.status(404).set(HEADERS).json({ ok: false, reason: "no such request among the latest the dashboard keeps" });
    const origin = `${req.protocol}://${req.headers.host ?? "127.0.0.1"}`;
    res.set(HEADERS).json(await requestDetail(ctx, kept, origin, appSecrets(ctx)));
  });
  router.post("/callbacks/:eventId/resend", async (req, res) => {
    const refused = sameSiteJson(req, res);
    if (refused) return void res.status(403).set(HEADERS).json({ ok: false, reason: refused });
    const result = await ctx.callbacks.resend(String(req.params.eventId));
    res.status(result.ok ? 200 : 409).set(HEADERS).json(result);
  });
  return router;
}
