// The sandbox's Express app: the signed interface at /open-api (answering /open-api/v1 and
// /open-api), the key-based interface at /v1, the control API at /sandbox, the cashier page at
// /cashier and the docs at /docs. Each interface has its own pipeline and error handler; what
// escapes them all still gets an envelope here.
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { SandboxContext } from "./context.js";
import { sendRaw } from "../server/internal.js";
import { SignedErrors } from "../../generated/error-codes.js";
import { requestLogger } from "./logger.js";
import { securityHeaders } from "./security-headers.js";
import { checkHost } from "./site-guard.js";
import { createRequestRecorder } from "./dashboard/recorder.js";
import { dashboardRouter } from "./dashboard/router.js";
import { cashierRouter } from "./routes/cashier.js";
import { controlRouter } from "./routes/control.js";
import { docsRouter } from "./routes/docs.js";
import { keyedRouter } from "./routes/keyed.js";
import { signedRouter } from "./routes/signed.js";
import { healthRoute } from "./routes/health.js";
import { storeGuard } from "./store-guard.js";
import { listenRouter } from "./listen/router.js";

export function createSandboxApp(ctx: SandboxContext): Express {
  const app = express();
  app.disable("x-powered-by");
  if (ctx.logger.requestsEnabled !== false) app.use(requestLogger(ctx.logger));
  app.use(securityHeaders);
  app.use(checkHost(ctx.servedHosts));
  // The dashboard (/sandbox/ui) remembers the latest requests, whatever the logger keeps.
  const recorder = createRequestRecorder(ctx.clock);
  app.use(recorder.middleware);
  // For a load balancer: answers whatever the store's state (and says it).
  app.get("/sandbox/health", healthRoute(ctx));
  app.use(["/open-api", "/v1", "/sandbox", "/cashier"], storeGuard(ctx));
  app.use("/sandbox/ui", dashboardRouter(ctx, recorder));
  app.use("/open-api", signedRouter(ctx));
  app.use("/v1", keyedRouter(ctx));
  if (ctx.listenSessions) app.use("/sandbox/listen", listenRouter(ctx, ctx.listenSessions));
  app.use("/sandbox", controlRouter(ctx));
  app.use("/cashier", cashierRouter(ctx));
  app.use("/docs", docsRouter());
  app.get("/", (_req, res) => res.redirect(302, "/docs"));
  app.use((_req: Request, res: Response) => {
    const entry = SignedErrors.PATH_NOT_FOUND;
    sendRaw(res, entry.http, { code: entry.code, msg: "No operation exists at this path. The sandbox serves /open-api/v1, /open-api, /v1, /sandbox, /cashier and /docs.", data: null });
  });
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    ctx.logger.error("An error escaped every handler. This is a sandbox bug.", { method: req.method, path: req.originalUrl, error });
    if (res.headersSent) return void res.destroy();
    const entry = SignedErrors.INTERNAL_ERROR;
    sendRaw(res, entry.http, { code: entry.code, msg: entry.meaning, data: null });
  });
  return app;
}
