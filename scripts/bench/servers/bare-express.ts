// The baseline of the throughput benchmark: bare Express 5 with the sandbox's own handlers
// (signedOperations over the same in-memory store and fixtures) and nothing else: no signature
// check, no validation (request or response), no lossless JSON parse, no request log. Routes
// come from the bundled spec's paths under /open-api/v1; the body is read by express.json();
// query values that look numeric become numbers (the validator's coercion, without the rules),
// ids (names ending in "Id") bigint, as the kit gives them.
// Answers are the same envelope, written with JSON.stringify (bigints as their digits).
// Prints "listening http://127.0.0.1:PORT" once it listens.
import express, { type NextFunction, type Request, type Response } from "express";
import { createCallbackDispatcher } from "../../../src/sandbox/callbacks/dispatcher.js";
import { createCashierKeys } from "../../../src/sandbox/cashier-key.js";
import { createSandboxClock } from "../../../src/sandbox/clock.js";
import { ServedHosts } from "../../../src/sandbox/site-guard.js";
import type { SandboxContext } from "../../../src/sandbox/context.js";
import { RefusalError, createRateLimiter } from "../../../src/server/index.js";
import type { DispatchHandler } from "../../../src/server/internal.js";
import { defaultFixtures } from "../../../src/sandbox/fixtures/load.js";
import { createQuietLogger } from "../../../src/sandbox/logger.js";
import { signedOperations } from "../../../src/sandbox/routes/signed.js";
import { loadBundle } from "../../../src/contract/index.js";
import { createMemoryStore } from "../../../src/sandbox/store/memory.js";
import { Scenarios } from "../../../src/sandbox/scenarios/scenarios.js";
import { createMemoryNonceStore } from "../../../src/signing/index.js";

const APP_KEY = "demo-app-key";

const clock = createSandboxClock();
const logger = createQuietLogger();
const records = createMemoryStore(defaultFixtures(), { maxOrdersPerApp: Number.MAX_SAFE_INTEGER, maxTradesPerApp: Number.MAX_SAFE_INTEGER });
const ctx: SandboxContext = {
  records,
  clock,
  callbacks: createCallbackDispatcher({ clock, logger, scheduleMs: [1000], timeoutMs: 5000, fetch: (input, init) => fetch(input, init) }),
  logger,
  nonceStore: createMemoryNonceStore(),
  rateLimiter: createRateLimiter(clock),
  allowInsecureNotify: true,
  notifyPolicy: { allowLoopback: true, allowPrivate: false },
  publicBaseUrl: (origin) => origin,
  servedHosts: new ServedHosts(),
  cashierKeys: createCashierKeys(),
  scenarios: new Scenarios(records.faults),
};
const handlers = signedOperations(ctx) as unknown as Record<string, DispatchHandler>;

function toJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === "bigint" ? `\u0000big${item}\u0000` : item)).replace(/"\\u0000big(-?\d+)\\u0000"/g, "$1");
}

function send(res: Response, status: number, envelope: unknown): void {
  res.status(status).type("application/json").send(toJson(envelope));
}

// Ids (names ending in "Id") as bigint, other numeric text as numbers: what the kit's input holds.
function coerce(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    out[key] = key.endsWith("Id") && idOf(value) !== undefined ? idOf(value) : typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value) && value.length < 16 ? Number(value) : value;
  }
  return out;
}

// Body ids (names ending in "Id", however deep) as bigint: what the kit's request step gives.
function bodyIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(bodyIds);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = key.endsWith("Id") && Number.isSafeInteger(item) ? BigInt(item as number) : bodyIds(item);
  return out;
}

function idOf(text: unknown): bigint | undefined {
  return typeof text === "string" && /^\d+$/.test(text) ? BigInt(text) : undefined;
}

const app = express();
app.disable("x-powered-by");
app.use(express.json({ limit: "1mb" }));

const spec = loadBundle("signed") as { paths: Record<string, Record<string, { operationId?: string }>> };
for (const [path, item] of Object.entries(spec.paths)) {
  const route = `/open-api/v1${path.replace(/\{([^}]+)\}/g, ":$1")}`;
  for (const [method, operation] of Object.entries(item)) {
    const handler = operation.operationId ? handlers[operation.operationId] : undefined;
    if (!handler) continue;
    (app as unknown as Record<string, (path: string, fn: (req: Request, res: Response, next: NextFunction) => void) => void>)[method]?.(route, (req, res, next) => {
      const input = {
        appKey: APP_KEY,
        app: ctx.records.app(APP_KEY),
        request: req,
        body: bodyIds(req.body),
        query: coerce(req.query as Record<string, unknown>),
        path: coerce(req.params as Record<string, string>),
        origin: `http://${req.headers.host ?? "127.0.0.1"}`,
      };
      Promise.resolve()
        .then(() => handler(input))
        .then((data) => send(res, 200, { code: 0, msg: "success", data }), next);
    });
  }
}
app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
  if (error instanceof RefusalError) send(res, error.entry.http, { code: error.entry.code, msg: error.message, data: null });
  else send(res, 500, { code: 100099, msg: String(error), data: null });
});

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  process.stdout.write(`listening http://127.0.0.1:${port}\n`);
});
const stop = () => {
  ctx.callbacks.close();
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
