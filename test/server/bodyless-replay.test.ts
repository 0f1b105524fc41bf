// DESIGN item 15: the string to sign (appKey + timestamp + nonce + body) has no separators, so
// the end of a used nonce moved into a body signs again. Sent over a raw socket (no client that
// would refuse a body on a GET): the shifted replay of a used GET is refused with 100009 before
// its nonce is recorded, chunked or not; and a captured callback replayed as a request to every
// operation of the signed interface is refused.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemasFor } from "../../src/contract/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { rawRequest } from "../hostile/support.js";
import { DEMO, DEMO_USER, startReceiver, startSandbox, type Receiver, type TestSandbox } from "../support/sandbox.js";

let sb: TestSandbox;
let receiver: Receiver;

beforeAll(async () => {
  sb = await startSandbox({ allowInsecureNotify: true, callbackSchedule: [50] });
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await sb?.close();
});

function requestText(method: string, target: string, headers: Record<string, string>, body = ""): string {
  const lines = [`${method} ${target} HTTP/1.1`, `Host: 127.0.0.1`, "Connection: close", ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  if (body !== "" && headers["Transfer-Encoding"] === undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join("\r\n")}\r\n\r\n${body}`;
}

function envelope(body: string): { code: number; msg: string; data: unknown } {
  return JSON.parse(body) as { code: number; msg: string; data: unknown };
}

/** A signed GET of the merchant list over a raw socket; answers the headers it was signed with. */
async function usedGet(nonce: string): Promise<Record<string, string>> {
  const headers = signRequestHeaders({ ...DEMO, body: "", nonce, now: () => sb.sandbox.clock.now() });
  const first = await rawRequest(sb.url, [requestText("GET", "/open-api/v1/merchants?pageNo=1", headers)]);
  expect(first.status, first.body).toBe(200);
  expect(envelope(first.body).code).toBe(0);
  return headers;
}

describe("a used signed GET replayed with the nonce's end moved into a body", () => {
  it("is refused with 100009 naming the operation, and its shorter nonce stays unused", async () => {
    const headers = await usedGet("replay-nonce-d12");
    const shifted = { ...headers, "X-Nonce": "replay-nonce-d1", "Content-Type": "application/json" };
    const replay = await rawRequest(sb.url, [requestText("GET", "/open-api/v1/merchants?pageNo=1", shifted, "2")]);
    expect(replay.status, replay.body).toBe(400);
    const answer = envelope(replay.body);
    expect(answer).toMatchObject({ code: 100009, data: null });
    expect(answer.msg).toContain("listMerchants");
    expect(answer.msg).toContain("takes no request body");

    // The refusal recorded nothing: the shorter nonce still signs a genuine request once.
    await usedGet("replay-nonce-d1");
  });

  it("is refused when the body comes chunked, and when the replay names another GET", async () => {
    const headers = await usedGet("chunked-nonce-77");
    const shifted = { ...headers, "X-Nonce": "chunked-nonce-7", "Content-Type": "application/json", "Transfer-Encoding": "chunked" };
    const chunked = await rawRequest(sb.url, [requestText("GET", "/open-api/v1/merchants/10001", shifted, "1\r\n7\r\n0\r\n\r\n")]);
    expect(chunked.status, chunked.body).toBe(400);
    expect(envelope(chunked.body)).toMatchObject({ code: 100009, data: null });
    expect(envelope(chunked.body).msg).toContain("getMerchant");
  });

  it("still answers a GET with an empty body (Content-Length: 0) as a GET", async () => {
    const headers = signRequestHeaders({ ...DEMO, body: "", now: () => sb.sandbox.clock.now() });
    const answer = await rawRequest(sb.url, [requestText("GET", "/open-api/v1/stores?merchantId=10001", { ...headers, "Content-Length": "0" })]);
    expect(answer.status, answer.body).toBe(200);
    expect(envelope(answer.body).code).toBe(0);
  });

  it("checks the signature first: a badly signed body on a GET is a signature error, not 100009", async () => {
    const headers = signRequestHeaders({ ...DEMO, body: "", now: () => sb.sandbox.clock.now() });
    const answer = await rawRequest(sb.url, [requestText("GET", "/open-api/v1/merchants", { ...headers, "X-App-Key": "nobody-app-key", "Content-Type": "application/json" }, "{}")]);
    expect(envelope(answer.body).code).toBe(100002);
  });
});

/** A request target for every operation of the signed spec, with ids that exist where they are needed. */
function targetOf(path: string, orderId: bigint): string {
  const filled = path
    .replace("{orderId}", String(orderId))
    .replace("{merchantId}", "10001")
    .replace("{storeId}", "20001");
  return `/open-api/v1${filled}?merchantId=10001`;
}

describe("a captured callback replayed as a request", () => {
  it("is refused by every operation of the signed interface, and nothing is answered with data", async () => {
    const orderId = await sb.createOrder({ userId: DEMO_USER });
    const { tradeNo } = await sb.createTrade({ notifyUrl: receiver.url });
    expect((await sb.control("POST", `/trades/${tradeNo}/pay`)).json.code).toBe(0);
    const [delivery] = await receiver.waitFor(1);
    const captured = delivery!;
    const headers: Record<string, string> = {
      "X-App-Key": String(captured.headers["x-app-key"]),
      "X-Timestamp": String(captured.headers["x-timestamp"]),
      "X-Nonce": String(captured.headers["x-nonce"]),
      "X-Sign": String(captured.headers["x-sign"]),
      "Content-Type": "application/json",
    };
    const operations = [...schemasFor("signed").operations.values()];
    expect(operations.length).toBe(18);
    for (const operation of operations) {
      const answer = await rawRequest(sb.url, [requestText(operation.method, targetOf(operation.path, orderId), headers, captured.body)]);
      const body = envelope(answer.body);
      expect(body.code, `${operation.operationId}: ${answer.body}`).not.toBe(0);
      expect(body.data, operation.operationId).toBeNull();
    }
  });
});
