// The cashier page a user is sent to (cashierUrl): small, accessible, self-contained HTML (no
// external resources). Subject, body, attach and returnUrl are the app's input, so every piece
// of text is escaped, and returnUrl becomes a link only when it is http(s).
import { formatPlatformTime } from "./clock.js";
import { DEFAULT_UNKNOWN_FOR_SECONDS, outcomeByAmount } from "./scenarios/outcomes.js";
import type { TradeRecord } from "./store/types.js";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);
}

/** 4250 fen → "42.50". */
export function yuan(fen: number): string {
  return `${Math.floor(fen / 100)}.${String(fen % 100).padStart(2, "0")}`;
}

const STATUS_TEXT: Record<TradeRecord["status"], string> = {
  WAIT_BUYER_PAY: "waiting for payment",
  SUCCESS: "paid",
  REFUND: "refunded",
  CLOSED: "closed",
  UNKNOWN: "result unknown",
};

/**
 * Security headers for the sandbox's HTML pages: nothing loads from anywhere. Referrer-Policy
 * same-origin (not no-referrer): under no-referrer a browser sends `Origin: null` with the page's
 * own form posts, which the cross-origin check (site-guard.ts) cannot tell from a foreign page's.
 * Other sites still get no referrer (and the return link is rel=noreferrer).
 */
export const PAGE_HEADERS = {
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 4px #0002}
h1{font-size:1.1rem;margin:0 0 .25rem}.note{color:#555;font-size:.9rem;margin-top:0}
h2{font-size:1.4rem;margin:1rem 0 .25rem;overflow-wrap:anywhere}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{color:#555}dd{margin:0;overflow-wrap:anywhere}
.amount{font-size:1.6rem;font-weight:700}
.actions{display:flex;flex-wrap:wrap;gap:.75rem;margin-top:1.25rem}
fieldset{margin-top:1.25rem;border:1px solid #ccd;border-radius:6px}legend{color:#555;font-size:.9rem}
fieldset .actions{margin-top:.5rem}button.test{background:#fff;color:#1d2330;border-color:#555;font-size:.9rem}
button{font:inherit;padding:.6rem 1.2rem;border-radius:6px;border:2px solid #1452cc;cursor:pointer}
button.pay{background:#1452cc;color:#fff}button.close{background:#fff;color:#1452cc}
button:focus-visible,a:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
.alert{padding:.5rem .75rem;border-radius:6px;background:#fdecea;color:#8a1c12}
.done{padding:.5rem .75rem;border-radius:6px;background:#e7f5ea;color:#135c24}
`;

function page(title: string, content: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${content}
</main>
</body>
</html>
`;
}

export interface CashierPageState {
  /** A result to announce: after a successful action, or why one was refused. */
  notice?: { kind: "done" | "alert"; text: string };
}

/** The page of a trade; `key` is its cashier key, carried by the Pay and Close forms. */
export function renderCashierPage(trade: TradeRecord, key: string, state: CashierPageState = {}): string {
  const amount = `¥${yuan(trade.totalAmount)}`;
  const action = (verb: string) => `/cashier/${encodeURIComponent(trade.tradeNo)}/${verb}?key=${encodeURIComponent(key)}`;
  const rows: [string, string][] = [
    ["Amount", `<span class="amount" id="amount">${escapeHtml(amount)}</span>`],
    ["Status", `<span id="status">${trade.status}</span> (${STATUS_TEXT[trade.status]})`],
    ["Expires", `<time id="expires" datetime="${formatPlatformTime(trade.expireTime)}">${escapeHtml(formatPlatformTime(trade.expireTime).replace("T", " "))}</time>`],
    ["Trade number", `<span id="trade-no">${escapeHtml(trade.tradeNo)}</span>`],
    ["Merchant order number", escapeHtml(trade.outTradeNo)],
  ];
  const notice = state.notice ? `<p class="${state.notice.kind}" role="${state.notice.kind === "alert" ? "alert" : "status"}">${escapeHtml(state.notice.text)}</p>` : "";
  const testAmount = outcomeByAmount(trade.totalAmount);
  const testAmountNote =
    trade.status === "WAIT_BUYER_PAY" && testAmount ? `<p class="note" id="test-amount">A sandbox test amount: paying it ends in ${escapeHtml(testAmount.effect)}.</p>` : "";
  const unknownNote =
    trade.status === "UNKNOWN"
      ? `<p class="note" id="unknown">The payment's result is unknown for now: ${trade.unknownUntil === null ? "it stays so until the sandbox's control API settles it" : `the sandbox settles it at <time datetime="${formatPlatformTime(trade.unknownUntil)}">${escapeHtml(formatPlatformTime(trade.unknownUntil).replace("T", " "))}</time> (${trade.unknownThen === "CLOSED" ? "closed" : "paid"})`}.</p>`
      : "";
  // The same outcomes as the control API's payTrade { outcome }, for a person (docs/scenarios.md).
  const testOutcome = (then: "SUCCESS" | "CLOSED", label: string) =>
    `<form method="post" action="${action("pay")}&amp;outcome=unknown&amp;then=${then}"><button type="submit" class="test">${label}</button></form>`;
  const actions =
    trade.status === "WAIT_BUYER_PAY"
      ? `<div class="actions">
<form method="post" action="${action("pay")}"><button type="submit" class="pay">Pay ${escapeHtml(amount)}</button></form>
<form method="post" action="${action("close")}"><button type="submit" class="close">Close</button></form>
</div>
<fieldset><legend>Test outcomes</legend><div class="actions">
${testOutcome("SUCCESS", `Pay, result unknown for ${DEFAULT_UNKNOWN_FOR_SECONDS} s, then paid`)}
${testOutcome("CLOSED", `Pay, result unknown for ${DEFAULT_UNKNOWN_FOR_SECONDS} s, then failed`)}
</div></fieldset>`
      : "";
  const returnLink =
    trade.status === "SUCCESS" && trade.returnUrl !== null && /^https?:\/\//i.test(trade.returnUrl)
      ? `<p><a id="return" href="${escapeHtml(trade.returnUrl)}" rel="noreferrer">Return to the merchant</a></p>`
      : "";
  return page(
    `${trade.subject} – sandbox cashier`,
    `<h1>Sandbox cashier</h1>
<p class="note">A test payment page of the local sandbox: no real money moves.</p>
<h2 id="subject">${escapeHtml(trade.subject)}</h2>
${trade.body === null ? "" : `<p id="body">${escapeHtml(trade.body)}</p>`}
${notice}
${testAmountNote}${unknownNote}
<dl>
${rows.map(([term, value]) => `<dt>${term}</dt><dd>${value}</dd>`).join("\n")}
</dl>
${actions}
${returnLink}`,
  );
}

export function renderNotFoundPage(tradeNo: string): string {
  return page(
    "Trade not found – sandbox cashier",
    `<h1>Trade not found</h1>
<p class="alert" role="alert">No payment trade <strong>${escapeHtml(tradeNo.slice(0, 64))}</strong> exists in this sandbox, or the address lacks the trade's key: open the <code>cashierUrl</code> exactly as the API returned it. A reset drops every trade.</p>`,
  );
}

export function renderBadAddressPage(): string {
  return page(
    "Bad address – sandbox cashier",
    `<h1>Bad address</h1>
<p class="alert" role="alert">This cashier address is malformed (bad percent-encoding). Open the <code>cashierUrl</code> exactly as the API returned it.</p>`,
  );
}

export function renderRefusedPage(reason: string): string {
  return page(
    "Refused – sandbox cashier",
    `<h1>Refused</h1>
<p class="alert" role="alert">${escapeHtml(reason)}</p>`,
  );
}
