// Item 2 of the hostile-input review: nothing about the body is read before the request has
// shown it may send one; slow and idle connections are closed by the server's timeouts; the
// connection count is capped. Each attack is followed by a valid signed request.
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { SignedErrors } from "../../generated/error-codes.js";
import { BODY_LIMIT_BYTES } from "../../src/server/index.js";
import { envelopeOf, expectStillServed, hostileSuite, hostPort, memoryProbe, rawRequest, signedHead, TEST_LIMITS } from "./support.js";

const { sb } = hostileSuite({ seed: { orders: 1, trades: 1 } });

const HALF_MIB = Buffer.alloc(512 * 1024, 0x20);

describe("refused before the body is read", () => {
  it("answers 100013 from Content-Length alone, without waiting for a byte of the body", async () => {
    const answer = await rawRequest(sb.url, [signedHead(sb, { path: "/customers/sync", contentLength: BODY_LIMIT_BYTES + 1 })], { waitMs: 3000 });
    expect(answer.status).toBe(413);
    expect(envelopeOf(answer).code).toBe(100013);
    expect(envelopeOf(answer).msg).toContain(`Content-Length ${BODY_LIMIT_BYTES + 1}`);
    expect(answer.head).toMatch(/\r\nconnection: close/i);
    await expectStillServed(sb);
  });

  it("answers 100013 to a too-large body on the control API too", async () => {
    const head = `POST /sandbox/clock/advance HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n`;
    const answer = await rawRequest(sb.url, [head], { waitMs: 3000 });
    expect(envelopeOf(answer).code).toBe(100013);
  });

  it.each([
    ["no signature headers", { unsigned: true }, SignedErrors.SIGNATURE_HEADER_MISSING.code],
    ["an unknown app key", { headers: { "X-App-Key": "nobody" } }, SignedErrors.APP_KEY_UNKNOWN.code],
    ["a stale timestamp", { headers: { "X-Timestamp": "1000000000" } }, SignedErrors.TIMESTAMP_OUT_OF_WINDOW.code],
    ["a malformed nonce", { headers: { "X-Nonce": "x" } }, SignedErrors.NONCE_MALFORMED.code],
  ])("answers %s while the body is still being sent", async (_name, variant: { unsigned?: boolean; headers?: Record<string, string> }, code) => {
    const head = signedHead(sb, { path: "/customers/sync", contentLength: BODY_LIMIT_BYTES, unsigned: variant.unsigned === true });
    const text = variant.headers ? overrideHeaders(head, variant.headers) : head;
    const answer = await rawRequest(sb.url, [text, "{"], { waitMs: 3000 });
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(envelopeOf(answer).code).toBe(code);
  });

  it("holds no body for 200 connections each sending half of an unsigned 1 MiB body", async () => {
    const probe = memoryProbe();
    const head = signedHead(sb, { path: "/customers/sync", contentLength: BODY_LIMIT_BYTES, unsigned: true });
    const answers = await Promise.all(Array.from({ length: 200 }, () => rawRequest(sb.url, [head, HALF_MIB], { waitMs: 8000 })));
    // Some connections are over the cap (64) and closed on arrival; every other one is refused.
    const refused = answers.filter((answer) => answer.status === 401);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of answers) expect(answer.status === 401 || (answer.status === 0 && answer.closed)).toBe(true);
    const grownMb = probe.check(150);
    console.log(`200 connections x half an unsigned 1 MiB body: resident set grew ${grownMb.toFixed(1)} MB`);
    await expectStillServed(sb);
  });
});

function overrideHeaders(head: string, overrides: Record<string, string>): string {
  const lines = head.split("\r\n");
  for (const [name, value] of Object.entries(overrides)) {
    const index = lines.findIndex((line) => line.toLowerCase().startsWith(`${name.toLowerCase()}:`));
    lines[index] = `${name}: ${value}`;
  }
  return lines.join("\r\n");
}

describe("slow and idle connections", () => {
  it("closes a connection whose headers never finish, with 408", async () => {
    const answer = await rawRequest(sb.url, ["GET /open-api/v1/merchants HTTP/1.1\r\nHost: 127.0.0.1\r\n"], { waitMs: TEST_LIMITS.headersTimeoutMs * 10 });
    expect(answer.timedOut).toBe(false);
    expect(answer.status).toBe(408);
    expect(envelopeOf(answer).msg).toContain("not received in time");
    await expectStillServed(sb);
  });

  it("closes a connection that never sends anything, with 408", async () => {
    const answer = await rawRequest(sb.url, [], { waitMs: TEST_LIMITS.headersTimeoutMs * 10 });
    expect(answer.timedOut).toBe(false);
    expect(answer.status).toBe(408);
  });

  it("closes a validly signed request whose body trickles in, with 408", async () => {
    const body = JSON.stringify({ openUserId: "slow-body" });
    const head = signedHead(sb, { path: "/customers/sync", body });
    const chunks = [head, ...body.split("").slice(0, -1)];
    const answer = await rawRequest(sb.url, chunks, { waitMs: TEST_LIMITS.requestTimeoutMs * 10, pauseMs: 100 });
    expect(answer.timedOut).toBe(false);
    expect(answer.status).toBe(408);
    await expectStillServed(sb);
  });

  it("closes an idle keep-alive connection after the keep-alive timeout", async () => {
    const { host, port } = hostPort(sb.url);
    const socket = connect({ host, port });
    const closed = new Promise<number>((resolve) => {
      let answeredAt = 0;
      socket.on("data", () => (answeredAt ||= performance.now()));
      socket.on("close", () => resolve(performance.now() - answeredAt));
    });
    socket.on("error", () => {});
    socket.write("GET /docs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const idleMs = await closed;
    expect(idleMs).toBeLessThan(TEST_LIMITS.keepAliveTimeoutMs * 10);
  });
});

describe("connection cap", () => {
  it(`serves at most ${TEST_LIMITS.maxConnections} connections at once, and recovers`, async () => {
    const { host, port } = hostPort(sb.url);
    const open: Socket[] = [];
    const closedEarly: number[] = [];
    await Promise.all(
      Array.from({ length: TEST_LIMITS.maxConnections + 10 }, (_, i) =>
        new Promise<void>((resolve) => {
          const socket = connect({ host, port }, () => resolve());
          socket.on("error", () => resolve());
          socket.on("close", () => closedEarly.push(i));
          open.push(socket);
        }),
      ),
    );
    // Give the server a moment to drop the extra connections.
    await new Promise((r) => setTimeout(r, 100));
    expect(closedEarly.length).toBeGreaterThanOrEqual(10);
    for (const socket of open) socket.destroy();
    await new Promise((r) => setTimeout(r, 50));
    await expectStillServed(sb);
  });
});
