// The cashier page over plain HTTP: what it shows, that the app's text is escaped, the forms'
// effects, and the 404 page. The browser test (cashier.browser.test.ts) clicks through it.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { escapeHtml, yuan } from "../../src/sandbox/cashier-page.js";
import { startSandbox, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(() => sb.close());
afterEach(() => expect(sb.logs.errors).toEqual([]));

async function page(path: string, init: RequestInit = {}) {
  const response = await fetch(`${sb.url}${path}`, { redirect: "manual", ...init });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** The page's path and query, with its key, from a cashierUrl. */
function local(cashierUrl: string): string {
  const url = new URL(cashierUrl);
  return `${url.pathname}${url.search}`;
}

function keyOf(cashierUrl: string): string {
  return new URL(cashierUrl).searchParams.get("key") ?? "";
}

const XSS = `<script>alert("x")</script><img src=x onerror=alert(1)>&'`;

describe("the page", () => {
  it("shows subject, body, amount in yuan, status and expiry, with Pay and Close forms", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade({ subject: "Tea house order 7", body: "2 x oolong", totalAmount: 4205, expireMinutes: 15 });
    const { status, headers, html } = await page(local(cashierUrl));
    expect(status).toBe(200);
    expect(headers.get("content-type")).toMatch(/^text\/html/);
    expect(headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(html).toContain('<html lang="en">');
    expect(html).toContain('<h2 id="subject">Tea house order 7</h2>');
    expect(html).toContain('<p id="body">2 x oolong</p>');
    expect(html).toContain('<span class="amount" id="amount">¥42.05</span>');
    expect(html).toContain('<span id="status">WAIT_BUYER_PAY</span>');
    expect(html).toContain('datetime="2026-11-22T10:30:30+08:00"');
    expect(html).toContain(`<form method="post" action="/cashier/${tradeNo}/pay?key=${keyOf(cashierUrl)}">`);
    expect(html).toContain(`<form method="post" action="/cashier/${tradeNo}/close?key=${keyOf(cashierUrl)}">`);
    // Self-contained: nothing is loaded from anywhere.
    expect(html).not.toMatch(/<(script|link|img|iframe)\b/i);
    expect(html).not.toMatch(/\bsrc=/i);
  });

  it("escapes the app's text", async () => {
    const { cashierUrl } = await sb.createTrade({ subject: XSS.slice(0, 32), body: XSS, returnUrl: "https://app.example.com/r?a=1&b=<x>" });
    const { html } = await page(local(cashierUrl));
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<img");
    expect(html).toContain(escapeHtml(XSS));
    expect(escapeHtml(XSS)).toBe("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&amp;&#39;");
  });

  it("formats fen as yuan with two decimals", () => {
    expect([1, 10, 100, 4250, 2147483647].map(yuan)).toEqual(["0.01", "0.10", "1.00", "42.50", "21474836.47"]);
  });

  it("answers the same 404 page for an existing trade without its key or with a wrong one", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade();
    const key = keyOf(cashierUrl);
    expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
    for (const path of [`/cashier/${tradeNo}`, `/cashier/${tradeNo}?key=${key.startsWith("A") ? "B" : "A"}${key.slice(1)}`, `/cashier/${tradeNo}?key=`]) {
      const { status, html } = await page(path);
      expect(status, path).toBe(404);
      expect(html).toContain("Trade not found");
    }
    const posted = await page(`/cashier/${tradeNo}/pay`, { method: "POST" });
    expect(posted.status).toBe(404);
    expect((await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` })).json.data.tradeStatus).toBe("WAIT_BUYER_PAY");
  });

  it("answers a 400 page, not an error, for bad percent-encoding", async () => {
    for (const path of ["/cashier/%ff", "/cashier/%E0%A4%A", "/cashier/%ff/pay"]) {
      const { status, html, headers } = await page(path, path.endsWith("/pay") ? { method: "POST" } : {});
      expect(status, path).toBe(400);
      expect(html).toContain("Bad address");
      expect(headers.get("content-security-policy")).toContain("default-src 'none'");
    }
  });

  it("refuses a Pay or Close posted from another origin's page (403), and the trade stays unpaid", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade();
    for (const headers of [{ Origin: "https://evil.example" }, { Origin: "null" }, { "Sec-Fetch-Site": "cross-site" }] as Record<string, string>[]) {
      const posted = await page(`/cashier/${tradeNo}/pay?key=${keyOf(cashierUrl)}`, { method: "POST", headers });
      expect(posted.status, JSON.stringify(headers)).toBe(403);
      expect(posted.html).toContain("another origin");
    }
    expect((await page(local(cashierUrl))).html).toContain('<span id="status">WAIT_BUYER_PAY</span>');
    const sameOrigin = await page(`/cashier/${tradeNo}/pay?key=${keyOf(cashierUrl)}`, { method: "POST", headers: { Origin: sb.url, "Sec-Fetch-Site": "same-origin" } });
    expect(sameOrigin.status).toBe(303);
  });

  it("answers a 404 page for an unknown or malformed tradeNo", async () => {
    for (const path of ["/cashier/1234567890", "/cashier/%3Cscript%3E", "/cashier/1/2/3"]) {
      const { status, html } = await page(path);
      expect(status, path).toBe(404);
      expect(html).toContain("Trade not found");
      expect(html).not.toContain("<script>");
    }
  });
});

describe("the buttons", () => {
  it("Pay: 303 back to the page, which shows SUCCESS and the return link; the callback is queued", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade({ returnUrl: "https://app.example.com/orders/1" });
    const posted = await page(`/cashier/${tradeNo}/pay?key=${keyOf(cashierUrl)}`, { method: "POST" });
    expect(posted.status).toBe(303);
    expect(posted.headers.get("location")).toBe(`/cashier/${tradeNo}?key=${keyOf(cashierUrl)}&done=paid`);
    const { html } = await page(posted.headers.get("location")!);
    expect(html).toContain('<span id="status">SUCCESS</span>');
    expect(html).toContain("Payment successful.");
    expect(html).toContain('<a id="return" href="https://app.example.com/orders/1"');
    expect(html).not.toContain("<form");
    expect((await sb.control("GET", `/callbacks?tradeNo=${tradeNo}`)).json.data.total).toBe(1);
  });

  it("never links a returnUrl that is not http(s)", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade({ returnUrl: "javascript:alert(1)" });
    await page(`/cashier/${tradeNo}/pay?key=${keyOf(cashierUrl)}`, { method: "POST" });
    expect((await page(local(cashierUrl))).html).not.toContain("javascript:");
  });

  it("Close: the trade closes", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade();
    const posted = await page(`/cashier/${tradeNo}/close?key=${keyOf(cashierUrl)}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "" });
    expect(posted.status).toBe(303);
    expect((await page(local(cashierUrl))).html).toContain('<span id="status">CLOSED</span>');
  });

  it("Pay on an expired trade shows why, with 409", async () => {
    const { tradeNo, cashierUrl } = await sb.createTrade({ expireMinutes: 1 });
    sb.sandbox.clock.advance(61_000);
    const posted = await page(`/cashier/${tradeNo}/pay?key=${keyOf(cashierUrl)}`, { method: "POST" });
    expect(posted.status).toBe(409);
    expect(posted.html).toContain('role="alert"');
    expect(posted.html).toContain("expired after 1 minutes");
    expect(posted.html).toContain('<span id="status">CLOSED</span>');
  });
});
