// The dashboard script's trades and orders: keyed rows with the control API's actions (pay,
// close, start service) where the record's state allows them.

export const SCRIPT_RECORDS = String.raw`
  // ---- trades, orders ----
  function buildTrade(t) {
    const row = el("tr", { id: "trade-" + t.tradeNo, tabindex: "-1", "data-trade": t.tradeNo });
    cells(row, ["Trade", "Order", "Status", "Amount (fen)", "Created", "Actions"]);
    return row;
  }
  function updateTrade(row, t) {
    const c = Array.from(row.children);
    if (!c[0].firstChild) c[0].append(el("code"), el("br"), el("span", { class: "muted" }));
    setText(c[0].children[0], t.tradeNo); setText(c[0].children[2], t.outTradeNo);
    setText(c[1], t.orderId || "–");
    if (!c[2].firstChild) c[2].append(el("span", { class: "trade-status" }), " ", el("span", { class: "muted" }));
    setText(c[2].children[0], t.status); setText(c[2].children[1], t.statusMeaning ? "(" + t.statusMeaning + ")" : "");
    setText(c[3], t.totalAmount); c[3].className = "num";
    setText(c[4], t.createTime);
    const open = t.status === "WAIT_BUYER_PAY";
    if (open && c[5].children.length === 0) {
      c[5].append(el("button", { type: "button", onclick: () => act("Pay " + t.tradeNo, "/sandbox/trades/" + encodeURIComponent(t.tradeNo) + "/pay") }, "Pay"),
        el("button", { type: "button", onclick: () => act("Close " + t.tradeNo, "/sandbox/trades/" + encodeURIComponent(t.tradeNo) + "/close") }, "Close"));
    } else if (!open && c[5].children.length > 0) c[5].replaceChildren();
  }
  function buildOrder(o) {
    const row = el("tr", { id: "order-" + o.orderId, tabindex: "-1", "data-order": o.orderId });
    cells(row, ["Order", "Merchant", "Type", "Status", "Amount (fen)", "Created", "Actions"]);
    return row;
  }
  function updateOrder(row, o) {
    const c = Array.from(row.children);
    if (!c[0].firstChild) c[0].append(el("code"));
    setText(c[0].firstChild, o.orderId);
    setText(c[1], o.merchantId);
    setText(c[2], o.orderTypeWord + " (" + o.orderType + ")");
    setText(c[3], o.statusWord + " (" + o.status + ")"); c[3].className = "order-status";
    setText(c[4], o.totalAmount); c[4].className = "num";
    setText(c[5], o.createTime);
    if (o.canStartService && c[6].children.length === 0) c[6].append(el("button", { type: "button", onclick: () => act("Start service of " + o.orderId, "/sandbox/orders/" + encodeURIComponent(o.orderId) + "/start-service") }, "Start service"));
    else if (!o.canStartService && c[6].children.length > 0) c[6].replaceChildren();
  }
`;
