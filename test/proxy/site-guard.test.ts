// mop proxy serves only its own Host names and refuses cross-site state changes (before, "mop
// proxy --sign serves any Host and any Origin"). Raw requests on a socket, as a DNS-rebinding
// page's browser would send them, through a signing proxy in front of the real sandbox: the
// proxy rewrites Host to the target's, so without its own check the sandbox's check never sees
// the page's name, and --sign hands the page the app's signature.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import { ProxyConfigError, startProxy } from "../../src/proxy/index.js";
import { DEMO_SECRETS, rawExchange, sandboxBehindProxy, type RawAnswer, type SandboxBehindProxy } from "./helpers.js";

const REFUSED = SignedErrors.REQUEST_SITE_REFUSED;
let env: SandboxBehindProxy;
let port: string;

beforeAll(async () => {
  env = await sandboxBehindProxy({ secrets: DEMO_SECRETS, sign: true });
  port = new URL(env.proxy.url).port;
});
afterAll(() => env.close());

function send(method: string, target: string, headers: Record<string, string>, body = ""): Promise<RawAnswer> {
  const lines = [`${method} ${target} HTTP/1.1`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`), "Connection: close"];
  if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return rawExchange(env.proxy.url, `${lines.join("\r\n")}\r\n\r\n${body}`);
}

const envelope = (answer: RawAnswer) => JSON.parse(answer.body.toString("utf8")) as { code: number; msg: string; data: unknown };

describe("Host: the names mop proxy serves", () => {
  it.each(["rebind.test", "evil.example", "127.0.0.1.rebind.test", "localhost.evil.example"])("refuses Host %s:PORT with 100017 before signing or forwarding, GETs included", async (name) => {
    const arrived = env.sandbox.logs.requests.length;
    for (const path of ["/open-api/v1/merchants?pageNo=1", "/open-api/merchants?pageNo=1", "/v1/account/merchants", "/sandbox/ui/state", "/sandbox/callbacks", "/sandbox/clock"]) {
      const answer = await send("GET", path, { Host: `${name}:${port}` });
      expect(answer.status, path).toBe(REFUSED.http);
      expect(envelope(answer), path).toMatchObject({ code: REFUSED.code, data: null });
      expect(envelope(answer).msg).toContain("is not a name mop proxy serves");
      expect(envelope(answer).msg).toContain("--allowed-host");
    }
    expect(env.sandbox.logs.requests.length).toBe(arrived);
  });

  it("reports the refused request as a violation", async () => {
    const seen = env.violations.length;
    await send("GET", "/sandbox/ui/state", { Host: `rebind.test:${port}` });
    expect(env.violations.slice(seen)).toEqual([expect.objectContaining({ direction: "request", method: "GET", path: "/sandbox/ui/state", problems: [expect.stringContaining('"rebind.test:')] })]);
  });

  it.each([`127.0.0.1:${"PORT"}`, "localhost:PORT", "LOCALHOST.", "[::1]:PORT", "app.localhost:PORT", "192.0.2.7", "[2001:db8::1]:80"])("serves Host %s: signs and forwards", async (host) => {
    const answer = await send("GET", "/open-api/v1/merchants?pageNo=1", { Host: host.replace("PORT", port) });
    expect(answer.status).toBe(200);
    expect(envelope(answer).code).toBe(0);
  });

  it("the sandbox's dashboard state and callback log are read through a served name only", async () => {
    const served = await send("GET", "/sandbox/ui/state", { Host: `127.0.0.1:${port}` });
    expect(served.status).toBe(200);
    const foreign = await send("GET", "/sandbox/ui/state", { Host: `rebind.test:${port}` });
    expect(foreign.body.toString()).not.toContain("demo-app-key");
    expect(foreign.status).toBe(REFUSED.http);
  });
});

describe("cross-site requests", () => {
  const syncCustomer = (headers: Record<string, string>) =>
    send("POST", "/open-api/v1/customers/sync", { Host: `127.0.0.1:${port}`, "Content-Type": "application/json", ...headers }, JSON.stringify({ openUserId: `site-guard-${Math.random().toString(36).slice(2, 10)}` }));

  it.each([
    ["a foreign Origin", { Origin: "https://evil.example" }],
    ["Origin: null (a sandboxed frame)", { Origin: "null" }],
    ["Origin naming the target, not the proxy", { Origin: "http://127.0.0.1:1" }],
    ["Sec-Fetch-Site: cross-site", { "Sec-Fetch-Site": "cross-site" }],
    ["Sec-Fetch-Site: same-site", { "Sec-Fetch-Site": "same-site" }],
  ])("refuses a signed POST with %s, forwarding nothing", async (_name, headers: Record<string, string>) => {
    const arrived = env.sandbox.logs.requests.length;
    const answer = await syncCustomer(headers);
    expect(answer.status).toBe(REFUSED.http);
    expect(envelope(answer)).toMatchObject({ code: REFUSED.code, data: null });
    expect(envelope(answer).msg).toMatch(/state-changing request from a page of another origin is refused/);
    expect(env.sandbox.logs.requests.length).toBe(arrived);
  });

  it("refuses a cross-site POST to the sandbox's control API behind the proxy", async () => {
    const answer = await send("POST", "/sandbox/reset", { Host: `127.0.0.1:${port}`, Origin: "https://evil.example", "Content-Type": "application/json" });
    expect(answer.status).toBe(REFUSED.http);
    expect(envelope(answer).msg).toContain("mop proxy");
  });

  it.each([
    ["no Origin (curl, SDKs)", {}],
    ["its own origin", { Origin: "PROXY" }],
    ["Sec-Fetch-Site: same-origin", { "Sec-Fetch-Site": "same-origin" }],
    ["Sec-Fetch-Site: none (typed by the user)", { "Sec-Fetch-Site": "none" }],
  ])("signs and forwards a POST with %s", async (_name, headers: Record<string, string>) => {
    const given = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, value === "PROXY" ? env.proxy.url : value]));
    const answer = await syncCustomer(given);
    expect(answer.status).toBe(200);
    expect(envelope(answer).code).toBe(0);
  });

  it("passes a cross-site GET (it cannot read the answer, and Host already stops rebinding pages)", async () => {
    const answer = await send("GET", "/open-api/v1/merchants?pageNo=1", { Host: `127.0.0.1:${port}`, Origin: "https://evil.example" });
    expect(answer.status).toBe(200);
  });
});

describe("allowedHosts (--allowed-host)", () => {
  it("serves a configured name, refuses others, also without --sign", async () => {
    const proxy = await startProxy({ target: env.sandbox.url, allowedHosts: ["proxy.internal", "Mixed.Example."] });
    try {
      const ask = (host: string) => rawExchange(proxy.url, `GET /sandbox/clock HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect((await ask("proxy.internal:4020")).status).toBe(200);
      expect((await ask("mixed.example")).status).toBe(200);
      const refused = await ask("rebind.test");
      expect(refused.status).toBe(REFUSED.http);
      expect(envelope(refused).msg).toContain("proxy.internal");
    } finally {
      await proxy.close();
    }
  });

  it.each([["http://proxy.internal"], ["proxy.internal:4020"], [""], ["a b"]])("refuses %j with a ProxyConfigError", async (name) => {
    await expect(startProxy({ target: env.sandbox.url, allowedHosts: [name] })).rejects.toThrow(ProxyConfigError);
  });
});
