// Byte fidelity both ways: paths as sent (raw sockets, so no client normalises them), headers
// minus hop-by-hop ones, bodies of every size and framing, answers with their Content-Length,
// and the proxy's own envelope answers for a refused connection (502) and a silent target (504).
import { connect, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES, startProxy, type ProxyViolation, type RunningProxy } from "../../src/proxy/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { DEMO, DEMO_USER } from "../support/sandbox.js";
import { rawExchange, rawHeader, rawRequest, sandboxBehindProxy, startRecordingUpstream, type RecordingUpstream } from "./helpers.js";

let upstream: RecordingUpstream;
let proxy: RunningProxy;
let strict: RunningProxy;
const violations: ProxyViolation[] = [];
beforeAll(async () => {
  upstream = await startRecordingUpstream();
  proxy = await startProxy({ target: upstream.url, onViolation: (v) => violations.push(v) });
  strict = await startProxy({ target: upstream.url, failOnViolation: true });
});
afterAll(async () => {
  await proxy.close();
  await strict.close();
  await upstream.close();
});
afterEach(() => upstream.answer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end('{"code":0,"msg":"success","data":null}')));

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |node:internal|\.ts:\d+/);

describe("paths", () => {
  it.each([
    "/open-api/v1/orders/../merchants",
    "/open-api/v1/./stores",
    "//open-api/v1/stores",
    "/open-api/v1/stores/%32%30%30%30%31",
    "/open-api/v1/stores?name=a%2Fb&name=%E4%B8%AD&x=%zz",
    "/open-api/v1/orders/%ff?merchantId=1",
    "/cashier/%E0%A4%A",
  ])("forwards %s exactly as sent, never with a 500", async (target) => {
    const answer = await rawExchange(proxy.url, rawRequest("GET", target));
    expect(answer.status).toBe(200);
    expect(upstream.arrivals.at(-1)!.url).toBe(target);
  });

  it("reports an undecodable path parameter, and refuses it with --fail-on-violation", async () => {
    const seen = violations.length;
    await rawExchange(proxy.url, rawRequest("GET", "/open-api/v1/stores/%ff"));
    expect(violations.slice(seen)[0]!.problems).toContain("path parameter storeId is not valid percent-encoding");
    const refused = await rawExchange(strict.url, rawRequest("GET", "/open-api/v1/stores/%ff"));
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body.toString()).code).toBe(100009);
  });

  it("judges only the two interfaces: an unknown path under them is reported, others pass untouched", async () => {
    const seen = violations.length;
    await rawExchange(proxy.url, rawRequest("GET", "/open-api/v1/orders/../merchants"));
    await rawExchange(proxy.url, rawRequest("GET", "/v1/nothing-here"));
    expect(violations.slice(seen).filter((v) => v.direction === "request").map((v) => v.problems)).toEqual([
      ["no operation of the contract at /open-api/v1/orders/../merchants"],
      ["no operation of the contract at /v1/nothing-here"],
    ]);
    const control = await rawExchange(strict.url, rawRequest("POST", "/sandbox/trades/123/pay", { "Content-Type": "application/json" }, "{}"));
    expect(control.status).toBe(200);
    expect(upstream.arrivals.at(-1)!.url).toBe("/sandbox/trades/123/pay");
  });

  it("reports a query parameter given twice", async () => {
    const seen = violations.length;
    await rawExchange(proxy.url, rawRequest("GET", "/open-api/v1/stores?pageNo=1&pageNo=2"));
    expect(violations.slice(seen)[0]!.problems).toContain("query parameter pageNo is given 2 times; it takes one value");
  });

  it("takes an absolute-form target (a client configured for an HTTP proxy) and forwards its path", async () => {
    await rawExchange(proxy.url, rawRequest("GET", "http://staging.example.com/open-api/v1/stores/20001?x=1"));
    expect(upstream.arrivals.at(-1)!.url).toBe("/open-api/v1/stores/20001?x=1");
  });

  it("puts the target's own path before the forwarded one", async () => {
    const prefixed = await startProxy({ target: `${upstream.url}/gateway/` });
    try {
      await rawExchange(prefixed.url, rawRequest("GET", "/open-api/v1/stores"));
      expect(upstream.arrivals.at(-1)!.url).toBe("/gateway/open-api/v1/stores");
    } finally {
      await prefixed.close();
    }
  });
});

describe("request headers", () => {
  it("keeps end-to-end headers in order, case and repetition; drops hop-by-hop ones and those Connection names", async () => {
    const request = [
      "GET /open-api/v1/stores HTTP/1.1",
      "Host: 127.0.0.1",
      "X-Trace: one",
      "Connection: close, X-Hop-Only",
      "X-Hop-Only: secret-to-this-hop",
      "Keep-Alive: timeout=5",
      "TE: trailers",
      "Proxy-Authorization: Basic Zm9vOmJhcg==",
      "x-MiXeD-Case: kept",
      "X-Trace: two",
      "",
      "",
    ].join("\r\n");
    await rawExchange(proxy.url, request);
    const raw = upstream.arrivals.at(-1)!.rawHeaders;
    expect(rawHeader(raw, "X-Trace")).toEqual(["one", "two"]);
    expect(raw).toContain("x-MiXeD-Case");
    for (const gone of ["X-Hop-Only", "Keep-Alive", "TE", "Proxy-Authorization"]) expect(rawHeader(raw, gone)).toEqual([]);
    expect(rawHeader(raw, "Host")).toEqual([new URL(upstream.url).host]);
  });
});

describe("request bodies", () => {
  it("forwards a body of exactly 1 MiB whole, with its Content-Length", async () => {
    const body = Buffer.alloc(MAX_BODY_BYTES, "a");
    await rawExchange(proxy.url, rawRequest("POST", "/open-api/v1/orders", { "Content-Type": "application/json" }, body));
    const arrival = upstream.arrivals.at(-1)!;
    expect(arrival.body.equals(body)).toBe(true);
    expect(rawHeader(arrival.rawHeaders, "Content-Length")).toEqual([String(MAX_BODY_BYTES)]);
  });

  it("refuses 1 MiB + 1 with 100013 in the envelope and forwards nothing", async () => {
    const before = upstream.arrivals.length;
    const answer = await rawExchange(proxy.url, rawRequest("POST", "/open-api/v1/orders", { "Content-Type": "application/json" }, Buffer.alloc(MAX_BODY_BYTES + 1, "a")));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ code: 100013, data: null });
    expect(upstream.arrivals.length).toBe(before);
  });

  it("refuses as soon as Content-Length says the body is too large, without waiting for it", async () => {
    const before = upstream.arrivals.length;
    const answer = await new Promise<string>((resolve) => {
      const { port } = new URL(proxy.url);
      const socket: Socket = connect(Number(port), "127.0.0.1");
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk.toString();
        if (text.includes("}")) socket.destroy();
      });
      socket.on("close", () => resolve(text));
      // Headers only: a body of 10 GB is announced and never sent.
      socket.write("POST /open-api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 10737418240\r\n\r\n");
    });
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":100013');
    expect(upstream.arrivals.length).toBe(before);
  });

  it("forwards a chunked body with the Content-Length of its bytes", async () => {
    const parts = ['{"merchantId":10001,', '"remark":"分块"}'];
    const chunks = parts.map((part) => `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`).join("");
    await rawExchange(proxy.url, `POST /open-api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`);
    const arrival = upstream.arrivals.at(-1)!;
    expect(arrival.body.toString()).toBe(parts.join(""));
    expect(rawHeader(arrival.rawHeaders, "Content-Length")).toEqual([String(Buffer.byteLength(parts.join("")))]);
    expect(rawHeader(arrival.rawHeaders, "Transfer-Encoding")).toEqual([]);
  });

  it("cuts a chunked body off at the limit with 100013", async () => {
    const before = upstream.arrivals.length;
    const chunk = Buffer.alloc(64 * 1024, "b");
    const head = Buffer.from("POST /open-api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
    const framed = Array.from({ length: 17 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]));
    const answer = await rawExchange(proxy.url, Buffer.concat([head, ...framed, Buffer.from("0\r\n\r\n")]));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body.toString()).code).toBe(100013);
    expect(upstream.arrivals.length).toBe(before);
  });
});

describe("answers", () => {
  it("passes status, headers (repeated ones too) and body byte for byte, with Content-Length", async () => {
    const body = Buffer.from('{"code":0,"msg":"success","data":{"id":9223372036854775807,"name":"茶"}}');
    upstream.answer((_req, res) => {
      res.writeHead(201, "Created Here", [["Content-Type", "application/json"], ["Set-Cookie", "a=1"], ["Set-Cookie", "b=2"], ["X-Upstream", "yes"]].flat());
      // Written in two pieces without a Content-Length: chunked on the upstream hop.
      res.write(body.subarray(0, 10));
      res.end(body.subarray(10));
    });
    const answer = await rawExchange(proxy.url, rawRequest("GET", "/open-api/v1/stores/20001"));
    expect(answer.head.split("\r\n")[0]).toBe("HTTP/1.1 201 Created Here");
    expect(answer.body.equals(body)).toBe(true);
    const headers = answer.headers.map(([name, value]) => `${name}: ${value}`);
    expect(headers).toEqual(expect.arrayContaining(["Set-Cookie: a=1", "Set-Cookie: b=2", "X-Upstream: yes", `Content-Length: ${body.length}`]));
    expect(headers.some((line) => /^transfer-encoding/i.test(line))).toBe(false);
  });

  it("keeps a compressed answer compressed, and judges its decoded content", async () => {
    const body = gzipSync('{"code":0,"msg":"success","data":"not a store"}');
    upstream.answer((_req, res) => res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip" }).end(body));
    const seen = violations.length;
    const answer = await rawExchange(proxy.url, rawRequest("GET", "/open-api/v1/stores/20001"));
    expect(answer.body.equals(body)).toBe(true);
    expect(answer.headers).toContainEqual(["Content-Encoding", "gzip"]);
    const judged = violations.slice(seen).find((v) => v.direction === "response");
    expect(judged?.problems.join()).toMatch(/body .*data/);
  });

  it("answers a HEAD request without a body but with the target's Content-Length", async () => {
    upstream.answer((_req, res) => res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "42" }).end());
    const answer = await rawExchange(proxy.url, rawRequest("HEAD", "/open-api/v1/stores"));
    expect(answer.headers).toContainEqual(["Content-Length", "42"]);
    expect(answer.body.length).toBe(0);
  });

  it("refuses an answer over the cap with 502 in the envelope", async () => {
    const capped = await startProxy({ target: upstream.url, maxAnswerBytes: 1000 });
    try {
      upstream.answer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end(`{"pad":"${"x".repeat(5000)}"}`));
      const answer = await rawExchange(capped.url, rawRequest("GET", "/open-api/v1/stores"));
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.body.toString())).toMatchObject({ code: 100099, data: null });
    } finally {
      await capped.close();
    }
  });
});

describe("a target that is down or silent", () => {
  let silent: TcpServer;
  let silentUrl: string;
  const held: Socket[] = [];
  beforeAll(async () => {
    // Accepts connections and reads, never answers.
    silent = createTcpServer((socket) => {
      held.push(socket);
      socket.on("data", () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  });

  async function freePortUrl(): Promise<string> {
    const probe = createTcpServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    return `http://127.0.0.1:${port}`;
  }

  it.each([
    ["signed", "/open-api/v1/stores", { code: 100099, msg: expect.stringMatching(/cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/) }],
    ["keyed", "/v1/merchants", { code: 500, message: expect.stringMatching(/ECONNREFUSED/) }],
  ])("answers a refused connection with 502 in the %s envelope", async (_variant, path, envelope) => {
    const down = await startProxy({ target: await freePortUrl() });
    try {
      const answer = await rawExchange(down.url, rawRequest("GET", path));
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.body.toString())).toEqual({ ...envelope, data: null });
      noStack(answer.body.toString());
    } finally {
      await down.close();
    }
  });

  it("answers 504 in the envelope when the target stays silent past the timeout", async () => {
    const waiting = await startProxy({ target: silentUrl, timeoutMs: 150 });
    try {
      const answer = await rawExchange(waiting.url, rawRequest("POST", "/open-api/v1/orders", { "Content-Type": "application/json" }, "{}"));
      expect(answer.status).toBe(504);
      expect(JSON.parse(answer.body.toString())).toEqual({ code: 100099, msg: expect.stringContaining("did not answer within 150 ms"), data: null });
    } finally {
      await waiting.close();
    }
  });

  it("answers 504 when the target sends its headers and then stalls", async () => {
    upstream.answer((_req, res) => {
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": "100" });
      res.write('{"code":0');
    });
    const waiting = await startProxy({ target: upstream.url, timeoutMs: 150 });
    try {
      const answer = await rawExchange(waiting.url, rawRequest("GET", "/open-api/v1/stores"));
      expect(answer.status).toBe(504);
    } finally {
      await waiting.close();
    }
  });
});

describe("byte fidelity with the real sandbox", () => {
  it("a signature the client made over odd bytes still verifies upstream", async () => {
    const env = await sandboxBehindProxy({ failOnViolation: true, secrets: new Map([[DEMO.appKey, [DEMO.appSecret]]]) });
    try {
      const body = `{ "merchantId": 10001,\n  "userId": ${DEMO_USER}, "orderType": 1, "remark": "少冰 \\u00e9 🍵",\n "items": [{"itemType":1,"itemId":31001,"itemName":"茶","price":1800,"quantity":2}] }`;
      const headers = { ...signRequestHeaders({ ...DEMO, body, now: () => env.sandbox.sandbox.clock.now() }), "Content-Type": "application/json" };
      const answer = await rawExchange(env.proxy.url, rawRequest("POST", "/open-api/v1/orders", headers, body));
      const text = answer.body.toString();
      expect(answer.status, text).toBe(200);
      expect(text).toMatch(/^\{"code":0,"msg":"success","data":\d{16,}\}$/);
      expect(env.violations).toEqual([]);
    } finally {
      await env.close();
    }
  });
});


