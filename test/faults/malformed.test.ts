// The sandbox under a burst of malformed traffic: thousands of requests over raw sockets (bad
// JSON, huge headers, wrong content types, truncated bodies, oversized bodies, broken request
// lines, random bytes), with valid signed requests interleaved. Every malformed request must
// get its 4xx envelope or a closed connection, never a 5xx, nothing may be logged as an internal
// error, and every valid signed request must be answered correctly throughout.
import { randomBytes } from "node:crypto";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signRequestHeaders } from "../../src/signing/index.js";
import { DEMO, startSandbox, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
let port: number;

beforeAll(async () => {
  sb = await startSandbox();
  port = Number(new URL(sb.url).port);
  // Compile the validators of the operations used below before the burst starts.
  expect((await sb.signed({ path: "/stores?merchantId=10001" })).status).toBe(200);
  await sb.createOrder();
});
afterAll(async () => {
  await sb.close();
});

interface RawAnswer {
  status: number | null;
  text: string;
}

/** Writes bytes on a fresh connection and reads until the server closes it (or 5 s pass). */
function raw(chunks: (string | Buffer)[], options: { halfClose?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    const received: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(received).toString("latin1");
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ status: status === undefined ? null : Number(status), text });
    });
    socket.on("connect", () => {
      for (const chunk of chunks) socket.write(chunk);
      if (options.halfClose) socket.end();
    });
  });
}

function signedHeaders(body: string): string {
  const headers = signRequestHeaders({ ...DEMO, body, now: () => sb.sandbox.clock.now() });
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
}

/** A complete HTTP/1.1 request as text. */
function request(method: string, path: string, headers: string, body = ""): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers}${body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : ""}\r\n${body}`;
}

type Kind = "bad JSON" | "huge header" | "wrong content type" | "truncated body" | "oversized body" | "broken request line" | "random bytes" | "unsigned";

const BAD_JSON = ['{"merchantId":', '{"merchantId":10001,}', "{'merchantId':10001}", "[1,2", '{"a":NaN}', "{", '"unterminated', '{"a":1}}', "nul", '{"a":01}'];
const WRONG_TYPES = ["text/plain", "application/xml", "multipart/form-data; boundary=x", "application/json; charset=latin1", "application/x-www-form-urlencoded"];

function malformed(i: number): { kind: Kind; send: () => Promise<RawAnswer> } {
  switch (i % 8) {
    case 0: {
      const body = BAD_JSON[i % BAD_JSON.length] as string;
      return { kind: "bad JSON", send: () => raw([request("POST", "/open-api/v1/orders", `${signedHeaders(body)}Content-Type: application/json\r\n`, body)]) };
    }
    case 1:
      return { kind: "huge header", send: () => raw([request("GET", "/open-api/v1/stores", `X-Padding: ${"a".repeat(20_000 + (i % 7) * 1000)}\r\n`)]) };
    case 2: {
      const body = '{"merchantId":10001}';
      return { kind: "wrong content type", send: () => raw([request("POST", "/open-api/v1/orders", `${signedHeaders(body)}Content-Type: ${WRONG_TYPES[i % WRONG_TYPES.length]}\r\n`, body)]) };
    }
    case 3: {
      const head = `POST /open-api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 400\r\n${signedHeaders("x".repeat(400))}\r\n`;
      return { kind: "truncated body", send: () => raw([head, '{"merchantId":10001,"userId":8800'], { halfClose: true }) };
    }
    case 4:
      return i % 160 === 4
        ? { kind: "oversized body", send: () => raw([`POST /open-api/v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${1024 * 1024 + 1}\r\n\r\n`, Buffer.alloc(1024 * 1024 + 1, 0x20)]) }
        : { kind: "unsigned", send: () => raw([request("POST", "/open-api/v1/orders", "Content-Type: application/json\r\n", '{"merchantId":10001}')]) };
    case 5:
      return { kind: "broken request line", send: () => raw([[`GET /open-api/v1/stores HTTP/9.9\r\n\r\n`, `BREW /\r\n\r\n`, `GET /open-api/v1/stores\x00 HTTP/1.1\r\n\r\n`, `GET /open-api/v1/stores HTTP/1.1\r\nX-Sign: a\x01b\r\n\r\n`][i % 4] as string]) };
    case 6:
      return { kind: "random bytes", send: () => raw([randomBytes(64 + (i % 256))], { halfClose: i % 2 === 0 }) };
    default: {
      const body = BAD_JSON[(i + 3) % BAD_JSON.length] as string;
      return { kind: "bad JSON", send: () => raw([request("POST", "/open-api/v1/customers/sync", `${signedHeaders(body)}Content-Type: application/json; charset=utf-8\r\n`, body)]) };
    }
  }
}

describe("a burst of malformed requests", () => {
  it("gets 4xx envelopes or closed connections, and valid signed requests stay correct throughout", async () => {
    const total = 2400;
    const concurrency = 48;
    const outcomes = new Map<Kind, Map<string, number>>();
    const bad: string[] = [];
    const valid: Promise<void>[] = [];
    let next = 0;
    let orderIds = 0;

    const validRequest = async (i: number) => {
      if (i % 2 === 0) {
        const answer = await sb.signed({ path: "/stores?merchantId=10001&pageNo=1&pageSize=10" });
        if (answer.status !== 200 || answer.json?.code !== 0 || answer.json.data.total !== 2) bad.push(`listStores: ${answer.status} ${answer.text.slice(0, 200)}`);
      } else {
        const id = await sb.createOrder();
        if (id <= 2n ** 53n || id % 2n !== 1n) bad.push(`createOrder answered id ${id}`);
        orderIds++;
      }
    };

    const worker = async () => {
      while (next < total) {
        const i = next++;
        if (i % 24 === 0) valid.push(validRequest(i / 24));
        const { kind, send } = malformed(i);
        const answer = await send();
        const key = answer.status === null ? "closed" : String(answer.status);
        const byKind = outcomes.get(kind) ?? new Map<string, number>();
        byKind.set(key, (byKind.get(key) ?? 0) + 1);
        outcomes.set(kind, byKind);
        if (answer.status !== null && answer.status >= 500) bad.push(`${kind} → ${answer.text.slice(0, 300)}`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    await Promise.all(valid);

    const summary = Object.fromEntries([...outcomes].map(([kind, counts]) => [kind, Object.fromEntries(counts)]));
    expect(bad, JSON.stringify(summary)).toEqual([]);
    expect(sb.logs.errors, JSON.stringify(sb.logs.errors.slice(0, 3))).toEqual([]);
    expect(orderIds).toBe(total / 24 / 2);

    // Each kind got the answer it should (a closed connection is acceptable where the client broke off).
    const only = (kind: Kind, allowed: string[]) => expect([...(outcomes.get(kind)?.keys() ?? [])].filter((status) => !allowed.includes(status)), `${kind}: ${JSON.stringify(summary[kind])}`).toEqual([]);
    only("bad JSON", ["400"]);
    only("huge header", ["431"]);
    only("wrong content type", ["415"]);
    only("unsigned", ["401"]);
    only("oversized body", ["413"]);
    only("broken request line", ["400", "505"]);
    only("random bytes", ["400", "closed"]);
    only("truncated body", ["400", "closed"]);
    expect([...outcomes.values()].reduce((sum, counts) => sum + [...counts.values()].reduce((a, b) => a + b, 0), 0)).toBe(total);

    // And afterwards the sandbox still answers, with the state it should have.
    const after = await sb.signed({ path: "/stores?merchantId=10001" });
    expect(after.status).toBe(200);
    expect(after.json.data.total).toBe(2);
  });

  it("answers the bad JSON with the position and the huge header with an envelope", async () => {
    const body = '{"merchantId":10001,}';
    const badJson = await raw([request("POST", "/open-api/v1/orders", `${signedHeaders(body)}Content-Type: application/json\r\n`, body)]);
    expect(badJson.status).toBe(400);
    expect(badJson.text).toMatch(/"code":100009/);
    expect(badJson.text).toMatch(/not valid JSON.*position/);
    const huge = await raw([request("GET", "/open-api/v1/stores", `X-Padding: ${"a".repeat(40_000)}\r\n`)]);
    expect(huge.status).toBe(431);
    expect(huge.text).toMatch(/"code":100009/);
  });
});
