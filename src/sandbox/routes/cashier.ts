// The cashier page at /cashier/{tradeNo}?key=…: GET shows the trade; the Pay and Close buttons
// POST here and redirect back (303) to show the new status (Pay may carry a test outcome:
// docs/scenarios.md). An unknown trade, or a known one
// without its key (cashier-key.ts), gets the same 404 page; a POST from another origin's page
// gets 403 (site-guard.ts); a malformed address gets a 400 page.
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { PAGE_HEADERS, renderBadAddressPage, renderCashierPage, renderNotFoundPage, renderRefusedPage } from "../cashier-page.js";
import type { SandboxContext } from "../context.js";
import { closeTrade, payTrade, refreshTrade, type PaymentRequest } from "../domain/payments.js";
import { RefusalError } from "../errors.js";
import { crossOriginMessage, crossOriginReason } from "../site-guard.js";
import type { TradeRecord } from "../store/types.js";
import { StoreUnavailableError } from "../store/rules.js";
import { requestState } from "../../server/index.js";

const NOTICES: Record<string, string> = {
  paid: "Payment successful.",
  closed: "The payment was closed.",
  unknown: "Payment submitted; its result is not known yet.",
};

/** The Pay buttons' outcome (docs/scenarios.md): none (the amount decides), or unknown then SUCCESS or CLOSED. */
function askedOutcome(query: Request["query"]): PaymentRequest | undefined {
  if (query.outcome === undefined && query.then === undefined) return {};
  if (query.outcome === "unknown" && (query.then === "SUCCESS" || query.then === "CLOSED")) return { outcome: "unknown", then: query.then };
  return undefined;
}

function sendPage(res: Response, status: number, html: string): void {
  res.status(status).set(PAGE_HEADERS).type("html").send(html);
}

/** The trade when it exists and the request carries its key; else undefined (the same 404 either way). */
async function findTrade(ctx: SandboxContext, req: Request<{ tradeNo: string }>): Promise<TradeRecord | undefined> {
  const { tradeNo } = req.params;
  const trade = /^[0-9]{1,19}$/.test(tradeNo) ? await ctx.records.trade(tradeNo) : undefined;
  if (!trade || !ctx.cashierKeys.matches(tradeNo, req.query.key)) return undefined;
  return refreshTrade(ctx, trade);
}

export function cashierRouter(ctx: SandboxContext): Router {
  const router = express.Router();

  router.get("/:tradeNo", async (req: Request<{ tradeNo: string }>, res) => {
    requestState(res).operationId = "cashierPage";
    const trade = await findTrade(ctx, req);
    if (!trade) return sendPage(res, 404, renderNotFoundPage(req.params.tradeNo));
    const done = typeof req.query.done === "string" ? NOTICES[req.query.done] : undefined;
    sendPage(res, 200, renderCashierPage(trade, ctx.cashierKeys.keyFor(trade.tradeNo), done ? { notice: { kind: "done", text: done } } : {}));
  });

  const act = (verb: "pay" | "close", run: (tradeNo: string, req: Request) => Promise<string>) =>
    async (req: Request<{ tradeNo: string }>, res: Response) => {
      requestState(res).operationId = verb === "pay" ? "cashierPay" : "cashierClose";
      const crossOrigin = crossOriginReason(req);
      if (crossOrigin !== undefined) return sendPage(res, 403, renderRefusedPage(crossOriginMessage(crossOrigin)));
      const trade = await findTrade(ctx, req);
      if (!trade) return sendPage(res, 404, renderNotFoundPage(req.params.tradeNo));
      const key = ctx.cashierKeys.keyFor(trade.tradeNo);
      let done: string;
      try {
        done = await run(trade.tradeNo, req);
      } catch (error) {
        if (!(error instanceof RefusalError)) throw error;
        return sendPage(res, 409, renderCashierPage(trade, key, { notice: { kind: "alert", text: error.message } }));
      }
      res.redirect(303, `/cashier/${trade.tradeNo}?key=${key}&done=${done}`);
    };

  router.post(
    "/:tradeNo/pay",
    (req: Request, res: Response, next: NextFunction) => {
      if (askedOutcome(req.query) !== undefined) return next();
      sendPage(res, 400, renderRefusedPage("This Pay button asks for an outcome the cashier does not offer (outcome=unknown with then=SUCCESS or CLOSED, or none)."));
    },
    act("pay", async (tradeNo, req) => {
      const { trade } = await payTrade(ctx, tradeNo, askedOutcome(req.query));
      return trade.status === "SUCCESS" ? "paid" : trade.status === "UNKNOWN" ? "unknown" : "closed";
    }),
  );
  router.post(
    "/:tradeNo/close",
    act("close", async (tradeNo) => {
      await closeTrade(ctx, tradeNo, "closed by the user at the cashier");
      return "closed";
    }),
  );
  router.use((req: Request, res: Response) => sendPage(res, 404, renderNotFoundPage(req.path.split("/")[1] ?? "")));
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    // A path the router cannot decode (bad percent-encoding, e.g. /cashier/%ff) is the client's mistake.
    if (error instanceof URIError || (error as { status?: unknown } | null)?.status === 400) {
      if (!res.headersSent) return sendPage(res, 400, renderBadAddressPage());
      return next(error);
    }
    if (error instanceof StoreUnavailableError) {
      if (!res.headersSent) sendPage(res.set("Retry-After", "1"), 503, renderRefusedPage(`The sandbox cannot reach its store now (${error.message}); nothing was changed. Try again in a moment.`));
      return;
    }
    ctx.logger.error("Internal error on the cashier page. This is a sandbox bug.", { path: req.originalUrl, error });
    if (!res.headersSent) sendPage(res, 500, "<!doctype html><html lang=\"en\"><title>Error</title><p>Internal sandbox error; see the sandbox log.</p></html>");
  });
  return router;
}
