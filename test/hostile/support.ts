// Shared by the hostile-input suite: a sandbox on loopback with small server limits (so tests
// wait milliseconds, not Node's minutes), raw HTTP over node:net (no client normalising what is
// sent), a memory probe, and a ledger of what valid requests created, read back at the end;
// hostileSuite() sets the sandbox and the ledger up for a test file.
import { connect } from "node:net";
import { afterAll, beforeAll, expect } from "vitest";
import type { SandboxOptions } from "../../src/sandbox/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { DEMO, startSandbox, type TestSandbox } from "../support/sandbox.js";

/** Small enough to be waited for in a test, large enough for a loaded machine. */
export const TEST_LIMITS = { headersTimeoutMs: 600, requestTimeoutMs: 1200, keepAliveTimeoutMs: 400, maxConnections: 64 } as const;

export async function startHostileSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  return startSandbox({ ...options, server: { ...TEST_LIMITS, ...options.server } });
}

export function hostPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

export interface RawAnswer {
  /** The status line's code, 0 when nothing came back. */
  status: number;
  head: string;
  body: string;
  /** The server closed the connection (after or without an answer). */
  closed: boolean;
  /** No answer and no close within the wait. */
  timedOut: boolean;
  elapsedMs: number;
}

/**
 * Sends the chunks as given (strings or bytes, a pause between them if pauseMs) and waits for
 * one whole answer (by Content-Length), the connection's close, or waitMs.
 */
export function rawRequest(url: string, chunks: (string | Buffer)[], options: { waitMs?: number; pauseMs?: number; keepOpen?: boolean } = {}): Promise<RawAnswer> {
  const { host, port } = hostPort(url);
  const waitMs = options.waitMs ?? 5000;
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let data = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean, timedOut: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const text = data.toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const head = split === -1 ? text : text.slice(0, split);
      const body = split === -1 ? "" : Buffer.from(text.slice(split + 4), "latin1").toString("utf8");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0);
      if (!options.keepOpen || closed) socket.destroy();
      resolve({ status, head, body, closed, timedOut, elapsedMs: performance.now() - started });
    };
    const timer = setTimeout(() => finish(false, true), waitMs);
    socket.on("data", (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const text = data.toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      if (split === -1) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, split));
      if (length && data.length - (split + 4) >= Number(length[1])) finish(false, false);
    });
    socket.on("error", () => finish(true, false));
    socket.on("close", () => finish(true, false));
    socket.on("connect", async () => {
      for (const [i, chunk] of chunks.entries()) {
        if (settled || socket.destroyed) return;
        if (i > 0 && options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
        if (!socket.destroyed) socket.write(chunk);
      }
    });
  });
}

/** Parses the JSON envelope of a raw answer. */
export function envelopeOf(answer: RawAnswer): { code: number; msg: string } {
  return JSON.parse(answer.body) as { code: number; msg: string };
}

/**
 * The resident set before an attack; check() after it asserts growth below boundMb. RSS is
 * noisy (the collector runs when it likes), so bounds are generous: they catch buffering of
 * the attack's volume, not a megabyte here or there.
 */
export function memoryProbe(): { check(boundMb: number): number } {
  const before = process.memoryUsage().rss;
  return {
    check(boundMb) {
      const grownMb = (process.memoryUsage().rss - before) / 2 ** 20;
      expect(grownMb, `resident set grew by ${grownMb.toFixed(1)} MB`).toBeLessThan(boundMb);
      return grownMb;
    },
  };
}

/** A valid signed request is answered right (after each attack). */
export async function expectStillServed(sb: TestSandbox): Promise<void> {
  const answer = await sb.signed({ path: "/merchants/10001" });
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json.code).toBe(0);
}

/**
 * Orders and trades made by valid requests, with their answers at creation; verify() reads
 * each back and expects the same answer ("nothing may be lost").
 */
export class Ledger {
  private readonly entries: { path: string; text: string }[] = [];
  constructor(private readonly sb: TestSandbox) {}

  async addOrder(): Promise<bigint> {
    const orderId = await this.sb.createOrder();
    await this.remember(`/orders/${orderId}?merchantId=10001`);
    return orderId;
  }

  async addTrade(): Promise<string> {
    const { tradeNo } = await this.sb.createTrade();
    await this.remember(`/payment/query?tradeNo=${tradeNo}`);
    return tradeNo;
  }

  private async remember(path: string): Promise<void> {
    const answer = await this.sb.signed({ path });
    expect(answer.json.code, answer.text).toBe(0);
    this.entries.push({ path, text: answer.text });
  }

  get size(): number {
    return this.entries.length;
  }

  async verify(): Promise<void> {
    for (const { path, text } of this.entries) expect((await this.sb.signed({ path })).text, path).toBe(text);
  }
}

/** The head of a request to the signed interface, signed over `body` unless `unsigned`. */
export function signedHead(sb: TestSandbox, options: { method?: string; path: string; body?: string; contentLength?: number; unsigned?: boolean; headers?: Record<string, string> }): string {
  const body = options.body ?? "";
  const lines = [`${options.method ?? "POST"} /open-api/v1${options.path} HTTP/1.1`, `Host: 127.0.0.1`, "Content-Type: application/json"];
  lines.push(`Content-Length: ${options.contentLength ?? Buffer.byteLength(body)}`);
  if (!options.unsigned) {
    const signature = signRequestHeaders({ appKey: DEMO.appKey, appSecret: DEMO.appSecret, body, now: () => sb.sandbox.clock.now() });
    for (const [name, value] of Object.entries(signature)) lines.push(`${name}: ${value}`);
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) lines.push(`${name}: ${value}`);
  return `${lines.join("\r\n")}\r\n\r\n`;
}

export interface HostileSuiteOptions {
  /** The sandbox's options (its server limits default to TEST_LIMITS). */
  sandbox?: SandboxOptions;
  /** Orders, then trades, created by valid requests before the tests and read back after them. */
  seed?: { orders?: number; trades?: number };
  /** After the tests, the sandbox must have logged no error. */
  noErrorsLogged?: boolean;
}

/**
 * A test file's sandbox and ledger, with the hooks that manage them: before the tests, a hostile
 * sandbox is started and the ledger seeded; after them, every ledger entry is read back
 * unchanged ("nothing may be lost"), the error log is checked when asked, and the sandbox is
 * closed whatever failed. `sb` stands in for the sandbox started in the beforeAll hook, so the
 * file can take it as a constant when the module loads.
 */
export function hostileSuite(options: HostileSuiteOptions = {}): { sb: TestSandbox; ledger: Ledger } {
  const sandbox = lateBound<TestSandbox>("The hostile suite's sandbox");
  const ledger = new Ledger(sandbox.standIn);
  beforeAll(async () => {
    sandbox.bind(await startHostileSandbox(options.sandbox));
    for (let i = 0; i < (options.seed?.orders ?? 0); i++) await ledger.addOrder();
    for (let i = 0; i < (options.seed?.trades ?? 0); i++) await ledger.addTrade();
  });
  afterAll(async () => {
    if (!sandbox.bound) return;
    try {
      await ledger.verify();
      if (options.noErrorsLogged) expect(sandbox.standIn.logs.errors).toEqual([]);
    } finally {
      await sandbox.standIn.close();
    }
  });
  return { sb: sandbox.standIn, ledger };
}

/** A stand-in for an object made later: reads go to it once bound, and fail clearly before. */
function lateBound<T extends object>(what: string): { standIn: T; bind(target: T): void; readonly bound: boolean } {
  let target: T | undefined;
  const standIn = new Proxy({} as T, {
    get(_empty, key) {
      if (!target) throw new Error(`${what} is used before the beforeAll hook that starts it.`);
      const value: unknown = Reflect.get(target, key, target);
      // Methods run on the real object (its private members are not on the stand-in).
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    standIn,
    bind(value) {
      target = value;
    },
    get bound() {
      return target !== undefined;
    },
  };
}
