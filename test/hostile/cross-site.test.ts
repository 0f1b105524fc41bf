// Item 3 (cross-site requests, DNS rebinding, guessable cashier pages, non-loopback listening),
// item 7 (bad percent-encoding on cashier paths) and item 9 (security headers) of the
// hostile-input review, each followed by a valid signed request.
import { describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import { captureLogger } from "../support/sandbox.js";
import { createSandbox, nonLoopbackWarning } from "../../src/sandbox/index.js";
import { envelopeOf, expectStillServed, hostileSuite, rawRequest } from "./support.js";

const { sb } = hostileSuite({ sandbox: { allowedHosts: ["sandbox.test"] }, seed: { trades: 1 }, noErrorsLogged: true });

const REFUSED = SignedErrors.REQUEST_SITE_REFUSED;

describe("DNS rebinding: the Host header", () => {
  it.each(["evil.example", "evil.example:4010", "127.0.0.1.evil.example", "localhost.evil.example"])("refuses Host %s on every interface, GET included", async (host) => {
    for (const path of ["/sandbox/callbacks", "/open-api/v1/merchants", "/cashier/1", "/docs"]) {
      const answer = await rawRequest(sb.url, [`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`]);
      expect(answer.status, path).toBe(REFUSED.http);
      expect(envelopeOf(answer).code).toBe(REFUSED.code);
      expect(envelopeOf(answer).msg).toContain("is not a name this sandbox serves");
    }
    await expectStillServed(sb);
  });

  it.each(["127.0.0.1:1", "localhost", "LOCALHOST.", "[::1]:80", "app.localhost", "192.0.2.7", "sandbox.test:8080"])("answers Host %s", async (host) => {
    const answer = await rawRequest(sb.url, [`GET /sandbox/clock HTTP/1.1\r\nHost: ${host}\r\n\r\n`]);
    expect(answer.status).toBe(200);
  });
});

describe("cross-site requests to the control API", () => {
  it.each([
    ["a foreign Origin", { Origin: "https://evil.example", "Content-Type": "application/json" }, REFUSED.code],
    ["Origin: null", { Origin: "null", "Content-Type": "application/json" }, REFUSED.code],
    ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site", "Content-Type": "application/json" }, REFUSED.code],
    ["a form's content type", { "Content-Type": "application/x-www-form-urlencoded" }, SignedErrors.UNSUPPORTED_MEDIA_TYPE.code],
    ["text/plain", { "Content-Type": "text/plain" }, SignedErrors.UNSUPPORTED_MEDIA_TYPE.code],
    ["no content type", {}, SignedErrors.UNSUPPORTED_MEDIA_TYPE.code],
  ])("refuses a pay and a reset with %s", async (_name, headers: Record<string, string>, code) => {
    const { tradeNo } = await sb.createTrade();
    for (const path of [`/sandbox/trades/${tradeNo}/pay`, "/sandbox/reset"]) {
      const response = await fetch(`${sb.url}${path}`, { method: "POST", headers });
      const body = (await response.json()) as { code: number; msg: string };
      expect(body.code, path).toBe(code);
    }
    expect((await sb.signed({ path: `/payment/query?tradeNo=${tradeNo}` })).json.data.tradeStatus).toBe("WAIT_BUYER_PAY");
    await expectStillServed(sb);
  });

  it("takes a same-origin JSON request", async () => {
    const { tradeNo } = await sb.createTrade();
    const response = await fetch(`${sb.url}/sandbox/trades/${tradeNo}/pay`, { method: "POST", headers: { Origin: sb.url, "Content-Type": "application/json" } });
    expect(((await response.json()) as { code: number }).code).toBe(0);
  });
});

describe("cashier pages", () => {
  it("cannot be opened by guessing neighbouring tradeNos", async () => {
    const { tradeNo } = await sb.createTrade({ subject: "Neighbour's secret order" });
    for (const guess of [BigInt(tradeNo) - 1n, BigInt(tradeNo), BigInt(tradeNo) + 1n]) {
      const response = await fetch(`${sb.url}/cashier/${guess}`);
      expect(response.status).toBe(404);
      expect(await response.text()).not.toContain("secret order");
    }
  });

  it.each(["/cashier/%ff", "/cashier/%", "/cashier/%E0%A4%A/pay", "/cashier/%C0%AF"])("answers %s with a 400 page and no sandbox bug", async (path) => {
    const answer = await rawRequest(sb.url, [`${path.endsWith("/pay") ? "POST" : "GET"} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`]);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain("Bad address");
    expect(sb.logs.errors).toEqual([]);
    await expectStillServed(sb);
  });
});

describe("security headers", () => {
  it.each([
    ["a signed JSON answer", "/open-api/v1/merchants"],
    ["a control answer", "/sandbox/clock"],
    ["a 404 answer", "/nowhere"],
    ["the docs", "/docs/"],
    ["a spec file", "/docs/specs/signed.openapi.json"],
    ["a cashier page", "/cashier/1"],
  ])("%s carries nosniff and a Content-Security-Policy", async (_name, path) => {
    const response = await fetch(`${sb.url}${path}`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    await response.arrayBuffer();
  });
});

describe("listening beyond loopback", () => {
  it.each([
    ["127.0.0.1", false],
    ["127.1.2.3", false],
    ["::1", false],
    ["::ffff:127.0.0.1", false],
    ["0.0.0.0", true],
    ["::", true],
    ["192.168.1.20", true],
    ["::ffff:10.0.0.1", true],
  ])("listening on %s warns: %s", (address, warns) => {
    const warning = nonLoopbackWarning(address);
    if (warns) expect(warning).toMatch(/not a loopback address: anyone who can reach it can use the control API/);
    else expect(warning).toBeUndefined();
  });

  it("logs no warning when listening on loopback (this suite binds nothing wider)", async () => {
    const logs = captureLogger();
    const sandbox = createSandbox({ logger: logs });
    await sandbox.listen({ port: 0, host: "127.0.0.1" });
    await sandbox.close();
    expect(logs.warnings).toEqual([]);
  });
});
