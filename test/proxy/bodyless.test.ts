// A body sent to an operation that takes none (DESIGN item 15) through mop proxy, on a raw socket
// (no client that would refuse a body on a GET): the checking proxy reports it as a contract
// violation, chunked or not; the signing proxy never signs one, so it cannot make the shifted-
// nonce replay of a GET (or any body where none belongs) look genuine: it answers 100009 and
// forwards nothing. A request carrying its own signature is still passed on, to be refused by
// the server, and reported.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signRequestHeaders } from "../../src/signing/index.js";
import { DEMO } from "../support/sandbox.js";
import { DEMO_SECRETS, rawExchange, sandboxBehindProxy, type RawAnswer, type SandboxBehindProxy } from "./helpers.js";

function requestText(method: string, target: string, headers: Record<string, string>, body = ""): string {
  const lines = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  if (body !== "" && headers["Transfer-Encoding"] === undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

const envelope = (answer: RawAnswer) => JSON.parse(answer.body.toString("utf8")) as { code: number; msg: string; data: unknown };

describe("mop proxy --sign", () => {
  let env: SandboxBehindProxy;
  beforeAll(async () => {
    env = await sandboxBehindProxy({ secrets: DEMO_SECRETS, sign: true });
  });
  afterAll(() => env.close());

  it.each([
    ["a one-byte body", "GET", "/open-api/v1/merchants?pageNo=1", { "Content-Type": "application/json" }, "2", "listMerchants", "a body of 1 bytes"],
    ["a chunked body", "GET", "/open-api/v1/merchants/10001", { "Content-Type": "application/json", "Transfer-Encoding": "chunked" }, "1\r\n7\r\n0\r\n\r\n", "getMerchant", "a chunked body"],
    ["an empty chunked body", "GET", "/open-api/stores?merchantId=10001", { "Transfer-Encoding": "chunked" }, "0\r\n\r\n", "listStores", "a chunked body"],
    ["a JSON object", "GET", "/open-api/v1/payment/query?tradeNo=1", { "Content-Type": "application/json" }, "{}", "queryPayment", "a body of 2 bytes"],
  ])("refuses to sign a GET with %s: 100009, nothing forwarded, a violation logged", async (_name, method, target, headers: Record<string, string>, body, operationId, sent) => {
    const arrived = env.sandbox.logs.requests.length;
    const seen = env.violations.length;
    const answer = await rawExchange(env.proxy.url, requestText(method, target, headers, body));
    expect(answer.status).toBe(400);
    const refusal = envelope(answer);
    expect(refusal).toMatchObject({ code: 100009, data: null });
    expect(refusal.msg).toContain(`mop proxy did not sign or forward the request: body: ${operationId} (GET) takes no request body, and this request sends ${sent}`);
    expect(env.sandbox.logs.requests.length).toBe(arrived);
    expect(env.violations.slice(seen)).toEqual([expect.objectContaining({ direction: "request", operationId, problems: [expect.stringContaining("takes no request body")] })]);
  });

  it("signs and forwards the same GET without a body, and with Content-Length: 0", async () => {
    for (const headers of [{}, { "Content-Length": "0" }] as Record<string, string>[]) {
      const answer = await rawExchange(env.proxy.url, requestText("GET", "/open-api/v1/merchants?pageNo=1", headers));
      expect(answer.status).toBe(200);
      expect(envelope(answer).code).toBe(0);
    }
  });

  it("passes on a request that carries its own signature; the server refuses it, the proxy reports it", async () => {
    const headers = signRequestHeaders({ ...DEMO, body: "2", now: () => env.sandbox.sandbox.clock.now() });
    const seen = env.violations.length;
    const answer = await rawExchange(env.proxy.url, requestText("GET", "/open-api/v1/merchants?pageNo=1", { ...headers, "Content-Type": "application/json" }, "2"));
    expect(answer.status).toBe(400);
    expect(envelope(answer).code).toBe(100009);
    expect(envelope(answer).msg).not.toContain("mop proxy");
    expect(env.violations.slice(seen)).toEqual([expect.objectContaining({ direction: "request", operationId: "listMerchants", problems: [expect.stringContaining("takes no request body")] })]);
  });
});

describe("mop proxy checking signatures (no --sign)", () => {
  let env: SandboxBehindProxy;
  beforeAll(async () => {
    env = await sandboxBehindProxy({ secrets: DEMO_SECRETS });
  });
  afterAll(() => env.close());

  const usedGet = async (nonce: string) => {
    const headers = signRequestHeaders({ ...DEMO, body: "", nonce, now: () => env.sandbox.sandbox.clock.now() });
    const first = await rawExchange(env.proxy.url, requestText("GET", "/open-api/v1/merchants?pageNo=1", headers));
    expect(first.status).toBe(200);
    return headers;
  };

  it("reports the shifted-nonce replay of a used GET as a violation (the server refuses it)", async () => {
    const headers = await usedGet("proxy-replay-d12");
    const seen = env.violations.length;
    const replay = await rawExchange(env.proxy.url, requestText("GET", "/open-api/v1/merchants?pageNo=1", { ...headers, "X-Nonce": "proxy-replay-d1", "Content-Type": "application/json" }, "2"));
    expect(envelope(replay).code).toBe(100009);
    const reported = env.violations.slice(seen);
    expect(reported).toHaveLength(1);
    expect(reported[0]!.problems).toContainEqual(expect.stringMatching(/^body: listMerchants \(GET\) takes no request body, and this request sends a body of 1 bytes; a server refuses it with 100009/));
  });

  it("reports an empty chunked body on a GET too", async () => {
    const headers = signRequestHeaders({ ...DEMO, body: "", now: () => env.sandbox.sandbox.clock.now() });
    const seen = env.violations.length;
    await rawExchange(env.proxy.url, requestText("GET", "/open-api/v1/stores?merchantId=10001", { ...headers, "Transfer-Encoding": "chunked" }, "0\r\n\r\n"));
    expect(env.violations.slice(seen)[0]?.problems).toContainEqual(expect.stringContaining("takes no request body, and this request sends a chunked body"));
  });

  it("with --fail-on-violation refuses it with 100009 and forwards nothing", async () => {
    const strict = await sandboxBehindProxy({ secrets: DEMO_SECRETS, failOnViolation: true });
    try {
      const headers = signRequestHeaders({ ...DEMO, body: "2", now: () => strict.sandbox.sandbox.clock.now() });
      const arrived = strict.sandbox.logs.requests.length;
      const answer = await rawExchange(strict.proxy.url, requestText("GET", "/open-api/v1/merchants?pageNo=1", { ...headers, "Content-Type": "application/json" }, "2"));
      expect(envelope(answer)).toMatchObject({ code: 100009, data: null });
      expect(envelope(answer).msg).toContain("mop proxy refused the request: body: listMerchants (GET) takes no request body");
      expect(strict.sandbox.logs.requests.length).toBe(arrived);
    } finally {
      await strict.close();
    }
  });
});
