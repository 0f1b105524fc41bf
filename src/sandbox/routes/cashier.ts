// The cashier page at /cashier/{tradeNo}: GET shows the trade; the Pay and Close buttons POST
// here and redirect back (303) to show the new status. Unknown trades get a 404 page.
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { PAGE_HEADERS, renderCashierPage, renderNotFoundPage } from "../cashier-page.js";
import type { SandboxContext } from "../context.js";
import { closeTrade, payTrade, refreshTrade } from "../domain/payments.js";
import { ApiError } from "../errors.js";
import type { TradeRecord } from "../store/types.js";

const NOTICES: Record<string, string> = { paid: "Payment successful.", closed: "The payment was closed." };

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(PAGE_HEADERS).type("html").send(html);
}

function findTrade(ctx: SandboxContext, tradeNo: string): TradeRecord | undefined {
  const trade = /^[0-9]{1,19}$/.test(tradeNo) ? ctx.store.trade(tradeNo) : undefined;
  return trade && refreshTrade(ctx, trade);
}

export function cashierRouter(ctx: SandboxContext): Router {
  const router = express.Router();

  router.get("/:tradeNo", (req: Request<{ tradeNo: string }>, res) => {
    res.locals.operationId = "cashierPage";
    const trade = findTrade(ctx, req.params.tradeNo);
    if (!trade) return sendPage(res, 404, renderNotFoundPage(req.params.tradeNo));
    const done = typeof req.query.done === "string" ? NOTICES[req.query.done] : undefined;
    sendPage(res, 200, renderCashierPage(trade, done ? { notice: { kind: "done", text: done } } : {}));
  });

  const act = (verb: "pay" | "close", run: (tradeNo: string) => void, done: string) =>
    (req: Request<{ tradeNo: string }>, res: Response) => {
      res.locals.operationId = verb === "pay" ? "cashierPay" : "cashierClose";
      const trade = findTrade(ctx, req.params.tradeNo);
      if (!trade) return sendPage(res, 404, renderNotFoundPage(req.params.tradeNo));
      try {
        run(trade.tradeNo);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        return sendPage(res, 409, renderCashierPage(trade, { notice: { kind: "alert", text: error.message } }));
      }
      res.redirect(303, `/cashier/${trade.tradeNo}?done=${done}`);
    };

  router.post("/:tradeNo/pay", act("pay", (tradeNo) => payTrade(ctx, tradeNo), "paid"));
  router.post("/:tradeNo/close", act("close", (tradeNo) => closeTrade(ctx, tradeNo, "closed by the user at the cashier"), "closed"));
  router.use((req: Request, res: Response) => sendPage(res, 404, renderNotFoundPage(req.path.split("/")[1] ?? "")));
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    ctx.logger.error("Internal error on the cashier page. This is a sandbox bug.", { path: req.originalUrl, error });
    if (!res.headersSent) sendPage(res, 500, "<!doctype html><html lang=\"en\"><title>Error</title><p>Internal sandbox error; see the sandbox log.</p></html>");
  });
  return router;
}
