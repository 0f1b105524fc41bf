import type { Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import express from "express";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  BODY_ALREADY_PARSED_ANSWER,
  CallbackConfigError,
  createCallbackHandler,
  createMemoryEventStore,
  DEFAULT_CALLBACK_BODY_TIMEOUT_MS,
  MAX_CALLBACK_BODY_BYTES,
  type CallbackEvent,
  type CallbackHandlerOptions,
} from "../../src/callbacks/index.js";
import { appSecret, deliver, NOW_MS, now, webhookExamples, type Delivery } from "./support.js";

const examples = webhookExamples();
const paid = examples.paymentSucceeded!;
const paidBody = JSON.stringify(paid);

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections(); // a test may leave a delivery hanging on purpose
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  vi.restoreAllMocks();
  server = undefined;
});

/** Mounts the handler in a real Express app on an ephemeral port, with a JSON parser on other routes. */
async function receiver(options: Partial<CallbackHandlerOptions> & Pick<CallbackHandlerOptions, "onEvent">) {
  const app = express();
  app.post("/notify", createCallbackHandler({ secrets: appSecret, now, ...options }));
  app.use(express.json());
  app.post("/other", (req, res) => void res.json(req.body));
  server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const post = async (delivery: Delivery, path = "/notify") => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, { method: "POST", headers: delivery.headers, body: delivery.body });
    return { status: response.status, type: response.headers.get("content-type"), text: await response.text() };
  };
  return { post, port };
}

describe("createCallbackHandler in an Express app", () => {
  it("acknowledges a genuine delivery with 200 text/plain success and calls onEvent once", async () => {
    const events: CallbackEvent[] = [];
    const { post } = await receiver({ onEvent: (event) => void events.push(event) });

    const reply = await post(deliver(paidBody));

    expect(reply).toEqual({ status: 200, type: "text/plain; charset=utf-8", text: "success" });
    expect(events).toEqual([paid]);
  });

  it("acknowledges a duplicate (same event id, fresh signature) without calling onEvent again", async () => {
    const events: CallbackEvent[] = [];
    const { post } = await receiver({ onEvent: (event) => void events.push(event) });

    expect((await post(deliver(paidBody))).status).toBe(200);
    const again = await post(deliver(paidBody));

    expect(again).toMatchObject({ status: 200, text: "success" });
    expect(events).toHaveLength(1);
  });

  it("handles every event type of the spec", async () => {
    const types: string[] = [];
    const { post } = await receiver({ onEvent: (event) => void types.push(event.type) });
    for (const payload of Object.values(examples)) expect((await post(deliver(JSON.stringify(payload)))).status).toBe(200);
    expect(types.sort()).toEqual(["member_card.application.approved", "member_card.application.rejected", "payment.succeeded"]);
  });

  it("answers 401 to a tampered body and does not call onEvent", async () => {
    const events: CallbackEvent[] = [];
    const { post } = await receiver({ onEvent: (event) => void events.push(event) });
    const genuine = deliver(paidBody);

    const reply = await post({ ...genuine, body: genuine.body.replace('"totalAmount":4250', '"totalAmount":1') });

    expect(reply.status).toBe(401);
    expect(reply.text).toMatch(/^SIGNATURE_MISMATCH/);
    expect(events).toHaveLength(0);
  });

  it("answers 401 to a delivery without signature headers", async () => {
    const { post } = await receiver({ onEvent: () => {} });
    const reply = await post({ headers: { "Content-Type": "application/json" }, body: paidBody });
    expect(reply).toMatchObject({ status: 401, text: expect.stringMatching(/^SIGNATURE_HEADER_MISSING/) });
  });

  it("answers 400 to a genuinely signed payload that is not a valid event", async () => {
    const { post } = await receiver({ onEvent: () => {} });
    const reply = await post(deliver(JSON.stringify({ ...paid, data: { ...paid.data, tradeStatus: "CLOSED" } })));
    expect(reply).toMatchObject({ status: 400, text: expect.stringMatching(/^PAYLOAD_INVALID/) });
  });

  it("answers 500 when onEvent throws, does not mark the event seen, and handles a later retry", async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const { post } = await receiver({
      onEvent: () => {
        calls += 1;
        if (calls === 1) throw new Error("database down");
      },
      onError: (error) => void errors.push(error),
    });

    const first = await post(deliver(paidBody));
    const retry = await post(deliver(paidBody));

    expect(first.status).toBe(500);
    expect(first.text).not.toContain("database down");
    expect(retry).toMatchObject({ status: 200, text: "success" });
    expect(calls).toBe(2);
    expect(errors).toEqual([new Error("database down")]);
  });

  it("answers 409 to a concurrent delivery of an event still being handled, then acknowledges it once handled", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const handling = new Promise<void>((resolve) => (entered = resolve));
    let calls = 0;
    const { post } = await receiver({
      onEvent: async () => {
        calls += 1;
        entered();
        await gate;
      },
    });

    const first = post(deliver(paidBody));
    await handling; // the first delivery holds the event
    const concurrent = await post(deliver(paidBody));
    release();

    expect(concurrent.status).toBe(409);
    expect((await first).status).toBe(200);
    expect((await post(deliver(paidBody))).status).toBe(200);
    expect(calls).toBe(1);
  });

  it("answers 413 to a body over 1 MiB without calling onEvent", async () => {
    let calls = 0;
    const { post } = await receiver({ onEvent: () => void (calls += 1) });
    const huge = JSON.stringify({ ...paid, data: { ...paid.data, attach: "x".repeat(MAX_CALLBACK_BODY_BYTES) } });
    const reply = await post(deliver(huge));
    expect(reply.status).toBe(413);
    expect(calls).toBe(0);
  });

  it("works behind express.raw(), using the bytes it already read", async () => {
    const events: CallbackEvent[] = [];
    const app = express();
    app.use(express.raw({ type: "*/*" }));
    app.post("/notify", createCallbackHandler({ secrets: appSecret, now, onEvent: (event) => void events.push(event) }));
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
    const { port } = server.address() as AddressInfo;
    const delivery = deliver(paidBody);
    const response = await fetch(`http://127.0.0.1:${port}/notify`, { method: "POST", headers: delivery.headers, body: delivery.body });
    expect(response.status).toBe(200);
    expect(events).toHaveLength(1);
  });

  it("after express.json(): tells onError what to change, logs it once, and answers 500 with the fix first so the sender retries", async () => {
    const consoleError = vi.spyOn(console, "error").mockImplementation(() => {});
    const errors: unknown[] = [];
    let calls = 0;
    const app = express();
    app.use(express.json());
    app.post("/notify", createCallbackHandler({ secrets: appSecret, now, onEvent: () => void (calls += 1), onError: (error) => void errors.push(error) }));
    server = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => server!.once("listening", () => resolve()));
    const { port } = server.address() as AddressInfo;

    const answers: { status: number; text: string }[] = [];
    for (let i = 0; i < 3; i += 1) {
      const delivery = deliver(paidBody);
      const response = await fetch(`http://127.0.0.1:${port}/notify`, { method: "POST", headers: delivery.headers, body: delivery.body });
      answers.push({ status: response.status, text: await response.text() });
    }

    expect(answers.map((a) => a.status)).toEqual([500, 500, 500]);
    expect(answers[0]!.text).toBe(BODY_ALREADY_PARSED_ANSWER);
    // The sender's delivery log keeps the first 200 bytes: the fix must fit in them.
    expect(Buffer.byteLength(BODY_ALREADY_PARSED_ANSWER)).toBeLessThanOrEqual(200);
    expect(BODY_ALREADY_PARSED_ANSWER).toContain("before app.use(express.json())");
    expect(errors).toHaveLength(3);
    expect(errors[0]).toBeInstanceOf(CallbackConfigError);
    expect(errors[0]).toMatchObject({ field: "bodyParser", message: expect.stringContaining("Mount it before the parser") });
    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(String(consoleError.mock.calls[0]![0])).toContain("express.json()");
    expect(calls).toBe(0);
  });

  it("handles a retry once the lease of a delivery whose onEvent never finishes has lapsed", async () => {
    let clock = NOW_MS;
    const calls: string[] = [];
    let entered!: () => void;
    const hung = new Promise<void>((resolve) => (entered = resolve));
    const { post, port } = await receiver({
      now: () => clock,
      leaseMs: 30_000,
      onEvent: async () => {
        calls.push(calls.length === 0 ? "hangs" : "handled");
        if (calls.length === 1) {
          entered();
          await new Promise(() => {}); // never settles
        }
      },
    });
    const first = deliver(paidBody);
    const abort = new AbortController();
    const hanging = fetch(`http://127.0.0.1:${port}/notify`, { method: "POST", headers: first.headers, body: first.body, signal: abort.signal }).catch(() => "aborted");
    await hung;

    clock += 29_000; // within the lease (and the signature window): still held
    expect((await post(deliver(paidBody, { atMs: clock }))).status).toBe(409);
    clock += 1_000; // the lease lapses
    expect(await post(deliver(paidBody, { atMs: clock }))).toMatchObject({ status: 200, text: "success" });
    expect((await post(deliver(paidBody, { atMs: clock }))).status).toBe(200);
    expect(calls).toEqual(["hangs", "handled"]);
    abort.abort();
    expect(await hanging).toBe("aborted");
  });

  it("uses a shared event store when given one", async () => {
    const eventStore = createMemoryEventStore();
    const first = await receiver({ onEvent: () => {}, eventStore });
    await first.post(deliver(paidBody));
    expect(eventStore.has(paid.id as string)).toBe(true);
  });
});

/**
 * Sends a delivery's headers on a raw socket, then its body one byte every `tickMs`
 * (the whole body when `stopAfter` is not given), and reads until the server closes. Gives up
 * after `deadlineMs` so a handler that never answers fails the test instead of hanging it.
 */
function trickle(port: number, delivery: Delivery, { tickMs, stopAfter, deadlineMs = 5_000 }: { tickMs: number; stopAfter?: number; deadlineMs?: number }) {
  return new Promise<{ answer: string; bytesSent: number; closed: boolean }>((resolve) => {
    const body = Buffer.from(delivery.body);
    const head = [`POST /notify HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...Object.entries(delivery.headers).map(([name, value]) => `${name}: ${value}`), `Content-Length: ${body.length}`, "Connection: close"];
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let sent = 0;
    const finish = (closed: boolean) => {
      clearInterval(ticker);
      clearTimeout(deadline);
      socket.destroy();
      resolve({ answer, bytesSent: sent, closed });
    };
    socket.on("data", (chunk: Buffer) => void (answer += chunk.toString("utf8")));
    socket.on("error", () => undefined);
    socket.on("close", () => finish(true));
    socket.write(`${head.join("\r\n")}\r\n\r\n`);
    const ticker = setInterval(() => {
      if (sent >= (stopAfter ?? body.length) || socket.destroyed) return;
      socket.write(body.subarray(sent, sent + 1));
      sent += 1;
    }, tickMs);
    const deadline = setTimeout(() => finish(false), deadlineMs);
  });
}

describe("the body timeout", () => {
  it("answers 408 to a body trickled one byte at a time, closes the connection, and does not call onEvent", async () => {
    let calls = 0;
    const errors: unknown[] = [];
    const { port } = await receiver({ onEvent: () => void (calls += 1), onError: (error) => void errors.push(error), bodyTimeoutMs: 300 });
    // One byte every 20 ms: an idle timeout would never fire, the whole body would take seconds.
    const result = await trickle(port, deliver(paidBody), { tickMs: 20 });
    expect(result.closed).toBe(true);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(result.answer).toMatch(/\r\n\r\nBODY_TIMEOUT: the callback body did not arrive within 300 ms \(\d+ bytes received\); deliver it again$/);
    expect(result.bytesSent).toBeLessThan(Buffer.byteLength(paidBody));
    expect(calls).toBe(0);
    expect(String(errors[0])).toContain("BODY_TIMEOUT");
  });

  it("answers 408 to a body that stops arriving", async () => {
    const { port } = await receiver({ onEvent: () => {}, bodyTimeoutMs: 200 });
    const result = await trickle(port, deliver(paidBody), { tickMs: 5, stopAfter: 10 });
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(result.answer).toContain("(10 bytes received)");
  });

  it("takes a body that arrives in pieces within the limit", async () => {
    let calls = 0;
    const { port } = await receiver({ onEvent: () => void (calls += 1), bodyTimeoutMs: 5_000 });
    const result = await trickle(port, deliver(paidBody), { tickMs: 1 });
    expect(result.answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(calls).toBe(1);
  });

  it("is 10 s unless told otherwise", () => {
    expect(DEFAULT_CALLBACK_BODY_TIMEOUT_MS).toBe(10_000);
  });
});

describe("createCallbackHandler options", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["no secrets", { secrets: undefined, onEvent: () => {} }, "secrets"],
    ["an empty secret", { secrets: "", onEvent: () => {} }, "secrets"],
    ["an empty secret list", { secrets: [], onEvent: () => {} }, "secrets"],
    ["no onEvent", { secrets: appSecret }, "onEvent"],
    ["a lease of zero", { secrets: appSecret, onEvent: () => {}, leaseMs: 0 }, "leaseMs"],
    ["a body timeout of zero", { secrets: appSecret, onEvent: () => {}, bodyTimeoutMs: 0 }, "bodyTimeoutMs"],
    ["a body timeout that is not a number", { secrets: appSecret, onEvent: () => {}, bodyTimeoutMs: "10s" }, "bodyTimeoutMs"],
    ["an event store without release", { secrets: appSecret, onEvent: () => {}, eventStore: { claim: () => "claimed", complete: () => {} } }, "eventStore"],
  ])("refuses %s with a CallbackConfigError", (_name, options, field) => {
    expect(() => createCallbackHandler(options as never)).toThrow(CallbackConfigError);
    try {
      createCallbackHandler(options as never);
    } catch (error) {
      expect(error).toMatchObject({ field });
    }
  });
});
