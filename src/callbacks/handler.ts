// An Express request handler that receives the platform's callbacks (DESIGN item 8):
//
//   read the raw body itself (1 MiB cap) -> verify signature, freshness, payload -> dedupe on
//   the event id -> onEvent(event) -> 200 text/plain "success"
//
// It reads the body itself because the signature covers the exact bytes, and a JSON body parser
// would have thrown them away; it works whether or not express.json() is installed elsewhere,
// as long as it runs first on its own route (or after express.raw()). Mounted after
// express.json() it cannot verify anything: it says so to onError and once on the console, and
// answers 500 with the fix in the first line, so the sender retries and its log shows why.
//
// Answers: 200 "success" when handled or already handled (a duplicate must be acknowledged, or
// the platform keeps retrying it); 401 for a failed signature check, 400 for a payload that is
// not a valid event, 413 for a body over the cap, 408 for a body not received within
// bodyTimeoutMs (a sender trickling bytes holds no connection for minutes); 409 while the same event is being handled by
// another delivery (for at most the lease, leaseMs), and 500 when onEvent throws: the event is
// not marked handled, so the platform's next retry delivers it again.
import type { IncomingMessage, ServerResponse } from "node:http";
import { SignedErrors } from "../../generated/error-codes.js";
import type { NonceStore } from "../signing/index.js";
import { createMemoryNonceStore } from "../signing/index.js";
import { CallbackConfigError } from "./errors.js";
import { createMemoryEventStore, type EventStore } from "./event-store.js";
import type { CallbackEvent } from "./events.js";
import { secretList, verifyCallback, type CallbackFailure } from "./verify.js";

/** The largest callback body the handler reads; a larger one is answered 413. */
export const MAX_CALLBACK_BODY_BYTES = 1024 * 1024;

/**
 * How long the whole body of a delivery may take to arrive, unless `bodyTimeoutMs` says
 * otherwise: ten times what a 1 MiB body needs on a slow link, and twice the sender's own 5 s.
 */
export const DEFAULT_CALLBACK_BODY_TIMEOUT_MS = 10_000;

/** How long a delivery holds its event while onEvent runs, unless `leaseMs` says otherwise. */
export const DEFAULT_CALLBACK_LEASE_MS = 60_000;

/** The first line of the answer to every delivery while a body parser runs before the handler. */
export const BODY_ALREADY_PARSED_ANSWER =
  "BODY_ALREADY_PARSED: a body parser (e.g. express.json()) read the callback before this handler; mount createCallbackHandler before app.use(express.json())";

/** What onEvent learns about the delivery besides the event. */
export interface CallbackDelivery {
  appKey: string;
  /** X-Timestamp of this attempt (Unix seconds); differs between retries of one event. */
  timestamp: number;
  nonce: string;
}

/** Options of createCallbackHandler: the secrets and onEvent are required, the rest have defaults. */
export interface CallbackHandlerOptions {
  /** The app secret, or several during a rotation. */
  secrets: string | readonly string[];
  /** Handles one event, once per event id. Throw to have the platform deliver it again later. */
  onEvent: (event: CallbackEvent, delivery: CallbackDelivery) => void | Promise<void>;
  /** Where handled event ids are kept. Default: a bounded in-memory store for this handler. */
  eventStore?: EventStore;
  /**
   * How long one delivery may hold its event while onEvent runs, in milliseconds. Other
   * deliveries of the event are answered 409 meanwhile; once it lapses (onEvent hung), the next
   * retry handles the event again. Default 60 000.
   */
  leaseMs?: number;
  /**
   * How long the whole body may take to arrive, in milliseconds, from the moment the handler
   * starts reading it. A slower body is answered 408 (the connection closed), so the platform
   * retries it. Default 10 000.
   */
  bodyTimeoutMs?: number;
  /** The clock in epoch milliseconds. Default Date.now. */
  now?: () => number;
  /** The app key deliveries must carry; default: any whose signature matches the secrets. */
  appKey?: string;
  /** Where used nonces are kept. Default: an in-memory store for this handler. */
  nonceStore?: NonceStore;
  /** Allowed clock distance of X-Timestamp, each way. Default 300 s. */
  windowSeconds?: number;
  /** Told about refused deliveries and failed handling, for logging. Must not throw. */
  onError?: (error: unknown, context: { event?: CallbackEvent; failure?: CallbackFailure }) => void;
}

/**
 * The handler createCallbackHandler returns: a plain (req, res) function, so it mounts in
 * Express (`app.post(path, handler)`) and on a bare `node:http` server alike, and the types
 * need no Express.
 */
export type CallbackRequestHandler = (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => void;

type BodyRead = { ok: true; bytes: Buffer } | { ok: false; status: number; text: string; parsedBefore?: true; close?: true };

function answer(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) return;
  res.statusCode = status;
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.end(text);
}

/** The raw body, up to `limit` bytes within `timeoutMs`; taken from express.raw()/text() if one already ran. */
function readRawBody(req: IncomingMessage & { body?: unknown }, limit: number, timeoutMs: number): Promise<BodyRead> {
  const tooLarge: BodyRead = { ok: false, status: 413, text: `BODY_TOO_LARGE: the callback body exceeds ${limit} bytes`, close: true };
  if (Buffer.isBuffer(req.body)) return Promise.resolve(req.body.length > limit ? tooLarge : { ok: true, bytes: req.body });
  if (typeof req.body === "string") return Promise.resolve({ ok: true, bytes: Buffer.from(req.body, "utf8") });
  if (req.readableEnded || (req.body !== undefined && req.body !== null)) {
    return Promise.resolve({ ok: false, status: 500, text: BODY_ALREADY_PARSED_ANSWER, parsedBefore: true });
  }
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume(); // discard, so the answer can go out
    return Promise.resolve(tooLarge);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer = setTimeout(() => {
      cleanup();
      req.resume(); // discard the rest; the answer closes the connection
      resolve({ ok: false, status: 408, text: `BODY_TIMEOUT: the callback body did not arrive within ${timeoutMs} ms (${size} bytes received); deliver it again`, close: true });
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        req.resume();
        resolve(tooLarge);
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve({ ok: true, bytes: Buffer.concat(chunks, size) });
    };
    const onError = (error: unknown) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      cleanup();
      reject(new Error("the callback request closed before its body ended"));
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("close", onClose);
  });
}

function checkOptions(options: CallbackHandlerOptions): void {
  if (typeof options !== "object" || options === null) throw new CallbackConfigError("options", "createCallbackHandler needs an options object");
  if (!secretList(options.secrets)) throw new CallbackConfigError("secrets", "secrets must be the app secret, or a non-empty list of secrets during a rotation");
  if (typeof options.onEvent !== "function") throw new CallbackConfigError("onEvent", "onEvent must be a function that handles one event");
  for (const field of ["now", "onError"] as const) {
    if (options[field] !== undefined && typeof options[field] !== "function") throw new CallbackConfigError(field, `${field} must be a function`);
  }
  for (const field of ["leaseMs", "bodyTimeoutMs"] as const) {
    const value = options[field];
    if (value !== undefined && !(typeof value === "number" && Number.isFinite(value) && value > 0)) {
      throw new CallbackConfigError(field, `${field} must be a positive number of milliseconds, got ${String(value)}`);
    }
  }
  const store = options.eventStore as Partial<EventStore> | undefined;
  if (store !== undefined && !(typeof store?.claim === "function" && typeof store.complete === "function" && typeof store.release === "function")) {
    throw new CallbackConfigError("eventStore", "eventStore must implement claim, complete and release");
  }
}

/**
 * An Express handler that receives the platform's callbacks: it verifies the signature, the
 * timestamp window, the nonce and the payload against the spec, calls `onEvent` once per event
 * id and acknowledges with `200 success`. Mount it on its own route BEFORE any JSON body parser,
 * because the signature covers the raw bytes.
 *
 * @example
 * ```ts
 * const app = express();
 * app.post("/callbacks", createCallbackHandler({
 *   secrets: process.env.MOP_APP_SECRET!,
 *   onEvent: async (event) => {
 *     if (event.type === "payment.succeeded") await markPaid(event.data.outTradeNo);
 *   },
 *   onError: (error) => console.warn("callback refused:", error),
 * }));
 * app.use(express.json()); // after the callback route
 * ```
 */
export function createCallbackHandler(options: CallbackHandlerOptions): CallbackRequestHandler {
  checkOptions(options);
  const { secrets, onEvent, appKey, now, windowSeconds, onError } = options;
  const clock = now ?? Date.now;
  const leaseMs = options.leaseMs ?? DEFAULT_CALLBACK_LEASE_MS;
  const bodyTimeoutMs = options.bodyTimeoutMs ?? DEFAULT_CALLBACK_BODY_TIMEOUT_MS;
  const eventStore = options.eventStore ?? createMemoryEventStore({ now: clock });
  const nonceStore = options.nonceStore ?? createMemoryNonceStore();
  let toldAboutBodyParser = false;
  const report = (error: unknown, context: { event?: CallbackEvent; failure?: CallbackFailure }) => {
    try {
      onError?.(error, context);
    } catch {
      // A logging hook must not change the answer.
    }
  };

  /** A set-up mistake, not a bad delivery: every delivery reports it; the console hears it once. */
  function misplaced(): void {
    const error = new CallbackConfigError(
      "bodyParser",
      "The callback handler received a body that a body parser (e.g. express.json()) had already parsed, so it cannot check the signature over the raw bytes. " +
        'Mount it before the parser: app.post("/callbacks", createCallbackHandler(...)) above app.use(express.json()), or exclude its route from the parser. ' +
        "Deliveries are answered 500 until then, so the platform retries them.",
    );
    report(error, {});
    if (!toldAboutBodyParser) {
      toldAboutBodyParser = true;
      console.error(`merchant-open-platform: ${error.message}`);
    }
  }

  async function handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") return answer(res, 405, "METHOD_NOT_ALLOWED: callbacks are POSTed", { Allow: "POST" });
    const body = await readRawBody(req, MAX_CALLBACK_BODY_BYTES, bodyTimeoutMs);
    if (!body.ok) {
      if (body.parsedBefore) misplaced();
      if (body.status === 408) report(new Error(body.text), {});
      return answer(res, body.status, body.text, body.close ? { Connection: "close" } : {});
    }

    const verification = await verifyCallback({
      headers: req.headers,
      rawBody: body.bytes,
      secrets,
      nonceStore,
      ...(appKey !== undefined ? { appKey } : {}),
      ...(now ? { now } : {}),
      ...(windowSeconds !== undefined ? { windowSeconds } : {}),
    });
    if (!verification.ok) {
      report(new Error(verification.message), { failure: verification });
      return answer(res, verification.httpStatus, `${verification.name}: ${verification.message}`);
    }

    const { event } = verification;
    const claimedAt = clock();
    const claim = await eventStore.claim(event.id, leaseMs);
    if (claim === "seen") return answer(res, 200, "success");
    if (claim === "busy") return answer(res, 409, "EVENT_IN_PROGRESS: this event is being handled; deliver it again later");

    try {
      await onEvent(event, { appKey: verification.appKey, timestamp: verification.timestamp, nonce: verification.nonce });
    } catch (error) {
      report(error, { event });
      // Once the lease lapsed another delivery may hold the event; releasing would drop its claim.
      if (clock() - claimedAt < leaseMs) {
        try {
          await eventStore.release(event.id);
        } catch (releaseError) {
          report(releaseError, { event });
        }
      }
      return answer(res, 500, "HANDLER_FAILED: the event was not handled; deliver it again later");
    }
    try {
      await eventStore.complete(event.id);
    } catch (error) {
      // Handled but not remembered: a retry may be handled again, which beats refusing it now.
      report(error, { event });
    }
    answer(res, 200, "success");
  }

  return (req, res) =>
    void handle(req, res).catch((error: unknown) => {
      report(error, {});
      answer(res, SignedErrors.INTERNAL_ERROR.http, "INTERNAL_ERROR: the callback could not be received; deliver it again later");
    });
}
