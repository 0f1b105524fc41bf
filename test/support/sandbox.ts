// Test helpers for the sandbox: a started sandbox with an injected clock and a capturing
// logger, a tiny signed-request helper over src/signing, and a JSON Schema check of answers.
import { readFileSync } from "node:fs";
import { expect } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { parseJsonLossless, stringifyJson, withBigIntsAsNumbers } from "../../src/json/index.js";
import { createSandbox, type RequestLogRecord, type Sandbox, type SandboxLogger, type SandboxOptions } from "../../src/sandbox/index.js";
import { signRequestHeaders } from "../../src/signing/index.js";
import { packageRoot } from "../../src/util/package-root.js";

export const DEMO = { appKey: "demo-app-key", appSecret: "demo-app-secret" } as const;
export const DEMO_NEXT_SECRET = "demo-app-secret-next";
export const BASIC = { appKey: "basic-app-key", appSecret: "basic-app-secret" } as const;
export const API_KEY = "demo-api-key";
export const BIG_MERCHANT = 9007199254740993n;
export const DEMO_USER = 880000000001n;

/** 2026-11-22T10:15:30+08:00, a Sunday. */
export const T0 = Date.parse("2026-11-22T02:15:30Z");

export interface CapturedLogs extends SandboxLogger {
  requests: RequestLogRecord[];
  warnings: { message: string; details?: Record<string, unknown> }[];
  errors: { message: string; details?: Record<string, unknown> }[];
}

export function captureLogger(): CapturedLogs {
  const logs: CapturedLogs = {
    requests: [],
    warnings: [],
    errors: [],
    request: (record) => void logs.requests.push(record),
    warn: (message, details) => void logs.warnings.push({ message, details }),
    error: (message, details) => void logs.errors.push({ message, details }),
  };
  return logs;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed losslessly (ids above 2^53 are bigint); undefined when not JSON. */
  json: any;
}

export interface SignedRequest {
  method?: string;
  path: string;
  /** An object (written losslessly) or the exact body text. */
  body?: unknown;
  app?: { appKey: string; appSecret: string };
  contentType?: string | null;
  /** Overrides of the four signature headers, or extra headers; null removes one. */
  headers?: Record<string, string | null>;
  timestamp?: string;
  nonce?: string;
}

export function bodyText(body: unknown): string {
  if (body === undefined) return "";
  return typeof body === "string" ? body : (stringifyJson(body) ?? "");
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let json: unknown;
  try {
    json = parseJsonLossless(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export class TestSandbox {
  constructor(
    readonly sandbox: Sandbox,
    readonly url: string,
    readonly logs: CapturedLogs,
    private readonly stop: () => Promise<void>,
    readonly baseClock: { now: () => number; set: (ms: number) => void },
  ) {}

  /** A signed request to the signed interface; path is relative to /open-api/v1 unless it starts with /open-api. */
  async signed(request: SignedRequest): Promise<Answer> {
    const text = bodyText(request.body);
    const app = request.app ?? DEMO;
    const signature = signRequestHeaders({
      appKey: app.appKey,
      appSecret: app.appSecret,
      body: text,
      now: () => this.sandbox.clock.now(),
      ...(request.timestamp !== undefined && { timestamp: request.timestamp }),
      ...(request.nonce !== undefined && { nonce: request.nonce }),
    });
    const headers: Record<string, string> = { ...signature };
    const contentType = request.contentType === undefined ? (text ? "application/json" : null) : request.contentType;
    if (contentType !== null) headers["Content-Type"] = contentType;
    for (const [name, value] of Object.entries(request.headers ?? {})) {
      for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
      if (value !== null) headers[name] = value;
    }
    const path = request.path.startsWith("/open-api") ? request.path : `/open-api/v1${request.path}`;
    return answer(await fetch(`${this.url}${path}`, { method: request.method ?? (text ? "POST" : "GET"), headers, body: text || undefined }));
  }

  /** A request to the control API (/sandbox). */
  async control(method: string, path: string, body?: unknown): Promise<Answer> {
    const text = bodyText(body);
    // State-changing control requests must be application/json, body or not (site-guard.ts).
    const json = text !== "" || (method !== "GET" && method !== "HEAD");
    return answer(await fetch(`${this.url}/sandbox${path}`, { method, headers: json ? { "Content-Type": "application/json" } : {}, body: text || undefined }));
  }

  /** A request to the key-based interface (/v1). */
  async keyed(path: string, options: { apiKey?: string | null; method?: string } = {}): Promise<Answer> {
    const apiKey = options.apiKey === undefined ? API_KEY : options.apiKey;
    return answer(await fetch(`${this.url}/v1${path}`, { method: options.method ?? "GET", headers: apiKey === null ? {} : { Authorization: `Bearer ${apiKey}` } }));
  }

  async raw(path: string, init: RequestInit = {}): Promise<Answer> {
    return answer(await fetch(`${this.url}${path}`, init));
  }

  /** Syncs a customer of the demo app; answers its appUserId. */
  async syncUser(openUserId: string, app: { appKey: string; appSecret: string } = DEMO): Promise<bigint> {
    const result = await this.signed({ path: "/customers/sync", body: { openUserId }, app });
    return BigInt(result.json.data.appUserId);
  }

  async createOrder(input: { merchantId?: bigint; orderType?: number; price?: number; quantity?: number; storeId?: bigint; userId?: bigint } = {}): Promise<bigint> {
    const userId = input.userId ?? DEMO_USER;
    const result = await this.signed({
      path: "/orders",
      body: {
        merchantId: input.merchantId ?? 10001n,
        userId,
        orderType: input.orderType ?? 1,
        ...(input.storeId !== undefined && { storeId: input.storeId }),
        items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: input.price ?? 1800, quantity: input.quantity ?? 2 }],
      },
    });
    if (result.json?.code !== 0) throw new Error(`createOrder failed: ${result.text}`);
    return BigInt(result.json.data);
  }

  async createTrade(overrides: Record<string, unknown> = {}): Promise<{ tradeNo: string; cashierUrl: string }> {
    const result = await this.signed({
      path: "/payment/cashier/create",
      body: { merchantId: 10001, outTradeNo: `T-${Math.random().toString(36).slice(2, 12)}`, totalAmount: 4250, subject: "Tea", notifyUrl: "https://127.0.0.1:9/cb", ...overrides },
    });
    if (result.json?.code !== 0) throw new Error(`createCashierSession failed: ${result.text}`);
    return result.json.data;
  }

  async close(): Promise<void> {
    await this.stop();
  }
}

/** A base clock the test can set; the sandbox adds its own offset on top. */
export function settableClock(start = T0): { now: () => number; set: (ms: number) => void } {
  let now = start;
  return { now: () => now, set: (ms) => void (now = ms) };
}

export async function startSandbox(options: SandboxOptions = {}): Promise<TestSandbox> {
  const logs = captureLogger();
  const clock = settableClock();
  // Tests deliver to receivers on loopback (https://127.0.0.1:9/cb by default): allowed here,
  // refused by default elsewhere (test/hostile checks the default).
  const sandbox = createSandbox({ clock, logger: logs, allowPrivateNotify: true, ...options });
  const listening = await sandbox.listen({ port: 0, host: "127.0.0.1" });
  return new TestSandbox(sandbox, listening.url, logs, () => sandbox.close(), clock);
}

// ---- answers against the spec, checked independently of the sandbox's own validator ----

type Json = Record<string, any>;
const specs = new Map<string, { spec: Json; ajv: Ajv2020; compiled: Map<string, ValidateFunction> }>();

function specFor(name: "signed" | "keyed" | "sandbox-control") {
  let entry = specs.get(name);
  if (!entry) {
    const spec = JSON.parse(readFileSync(join(packageRoot(), "generated", `${name}.openapi.json`), "utf8")) as Json;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...spec, $id: `https://test.local/${name}.json` });
    entry = { spec, ajv, compiled: new Map() };
    specs.set(name, entry);
  }
  return entry;
}

/** Errors of a success answer against the operation's 200 schema; empty when it fits. */
export function successSchemaErrors(name: "signed" | "keyed" | "sandbox-control", operationId: string, json: unknown): string[] {
  const entry = specFor(name);
  let validate = entry.compiled.get(operationId);
  if (!validate) {
    let pointer: string | undefined;
    for (const [path, item] of Object.entries(entry.spec.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        if ((operation as Json).operationId === operationId) pointer = `/paths/${path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}/responses/200/content/application~1json/schema`;
      }
    }
    if (!pointer) throw new Error(`no operation ${operationId}`);
    validate = entry.ajv.compile({ $ref: `https://test.local/${name}.json#${pointer}` });
    entry.compiled.set(operationId, validate);
  }
  if (validate(withBigIntsAsNumbers(json))) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

/** Errors of an error answer against the ErrorEnvelope schema (the control API's: ControlErrorEnvelope). */
export function errorEnvelopeErrors(json: unknown, name: "signed" | "sandbox-control" = "signed"): string[] {
  const entry = specFor(name);
  let validate = entry.compiled.get("#ErrorEnvelope");
  if (!validate) {
    const schema = name === "signed" ? "ErrorEnvelope" : "ControlErrorEnvelope";
    validate = entry.ajv.compile({ $ref: `https://test.local/${name}.json#/components/schemas/${schema}` });
    entry.compiled.set("#ErrorEnvelope", validate);
  }
  if (validate(withBigIntsAsNumbers(json))) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

// ---- a callback receiver ----

export interface ReceivedCallback {
  at: number;
  headers: IncomingMessage["headers"];
  body: string;
}

export interface Receiver {
  url: string;
  received: ReceivedCallback[];
  /** Answers, in order, for the next requests; after they run out, 200 "success". */
  script: ({ status: number; location?: string } | "hang")[];
  close(): Promise<void>;
  /** Resolves once `count` callbacks have arrived. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedCallback[]>;
}

export async function startReceiver(path = "/callbacks"): Promise<Receiver> {
  const received: ReceivedCallback[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Partial<Receiver> & { script: Receiver["script"] } = { script: [] };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
      const next = receiver.script.shift();
      if (next === "hang") return; // never answers: the sender's timeout must fire
      const status = next?.status ?? 200;
      res.writeHead(status, { "Content-Type": "text/plain", ...(next?.location && { Location: next.location }) });
      res.end(status < 300 ? "success" : "fail");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    waitFor: (count: number, timeoutMs = 5000) =>
      new Promise<ReceivedCallback[]>((resolve, reject) => {
        if (received.length >= count) return resolve(received);
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} callbacks arrived`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve(received)) });
      }),
  }) as Receiver;
}

/** Polls until check() returns a value (not undefined/false) or the time runs out. */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A success answer of the signed interface or the control API (both {code: 0, msg: "success"}):
 * 200, the success envelope, and a body that fits the operation's 200 schema. Its data.
 */
export function expectSuccess(spec: "signed" | "sandbox-control", operationId: string, answer: Answer): any {
  expect(answer.status, answer.text).toBe(200);
  expect(answer.json.code, answer.text).toBe(0);
  expect(answer.json.msg).toBe("success");
  expect(successSchemaErrors(spec, operationId, answer.json)).toEqual([]);
  return answer.json.data;
}
