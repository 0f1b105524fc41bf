// Sending the contract's callbacks (DESIGN item 8): the payload checked against its webhook in
// the signed spec, an event id that stays the same on every attempt, the same bytes on every
// attempt, each attempt signed afresh (four headers, the app's first secret, a fresh timestamp
// and nonce). Any 2xx within the timeout (5 s) acknowledges; a redirect, another status, a
// timeout or a refused connection is retried on the contract's schedule (15 retries over about
// 24 h); after the last, the delivery is marked failed. Deliveries are saved in an outbox
// (callback-outbox.ts) before the first attempt and after each one, and resumed after a restart.
//
// Retries wait on unref'd timers, and also run when deliverDue() is called after a clock the
// sender reads (`now`) was moved, so a test or the sandbox can walk the 24-hour schedule.
import { randomBytes } from "node:crypto";
import { schemasFor } from "../contract/index.js";
import { signRequestHeaders } from "../signing/index.js";
import { MerchantOpenPlatformError } from "../errors.js";
import { createMemoryCallbackOutbox, type CallbackAttempt, type CallbackDelivery, type CallbackOutbox, type MaybePromise } from "./callback-outbox.js";
import type { CallbackData, CallbackEventType } from "./callback-types.js";
import { ServerConfigError } from "./errors.js";
import { stringifyExactJson, withBigIntsAsNumbers } from "../json/index.js";
import { serverLogger, type ServerLogger } from "./logger.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** DESIGN item 8: the delays of the 15 retries after the first attempt, about 24 h in all. */
export const DEFAULT_CALLBACK_SCHEDULE_MS: readonly number[] = [
  15 * SECOND, 15 * SECOND, 30 * SECOND, 3 * MINUTE, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE, 30 * MINUTE,
  30 * MINUTE, 60 * MINUTE, 3 * HOUR, 3 * HOUR, 3 * HOUR, 6 * HOUR, 6 * HOUR,
];

/** A receiver acknowledges with any 2xx within this time (DESIGN item 8). */
export const CALLBACK_TIMEOUT_MS = 5000;

/** How much of a failed answer's body an attempt keeps: enough for a receiver's one-line reason. */
export const RESPONSE_BODY_KEPT_BYTES = 200;

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A new event id: `evt_` and 24 random letters and digits. */
export function newEventId(): string {
  const bytes = randomBytes(24);
  let id = "evt_";
  for (const byte of bytes) id += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  return id;
}

/** An ISO 8601 UTC time in whole seconds, e.g. 2026-11-22T02:15:30Z. */
export function formatUtcSeconds(epochMs: number): string {
  return `${new Date(Math.floor(epochMs / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** The app the sender signs for: its secrets, the first of which signs (the router's AppLookup fits). */
export type CallbackAppLookup = (appKey: string) => MaybePromise<{ readonly appSecrets: readonly string[] } | undefined>;

export interface CallbackSenderOptions {
  /** App key → its secrets; the first signs every attempt (read at each attempt, so a rotation applies to retries). */
  apps: CallbackAppLookup;
  /** Where deliveries are kept. Default: this process's memory (createMemoryCallbackOutbox). */
  outbox?: CallbackOutbox;
  /** Delays between attempts, ms. Default DEFAULT_CALLBACK_SCHEDULE_MS; compress it for tests. */
  scheduleMs?: readonly number[];
  /** How long a receiver has to answer 2xx. Default 5000 ms. */
  timeoutMs?: number;
  /** The clock (epoch ms) of timestamps, createTime and the schedule. Default Date.now. */
  now?: () => number;
  /** How a createTime (epoch ms) is written in the payload. Default ISO 8601 UTC in whole seconds. */
  formatTime?: (epochMs: number) => string;
  fetch?: typeof fetch;
  /**
   * Why a target may not be contacted now (checked before every attempt), or undefined. Default:
   * only https:// targets (the contract's notifyUrl rule). A platform refuses private and
   * link-local addresses here (the sandbox's policy does), so a notifyUrl cannot reach its network.
   */
  checkTarget?: (url: string, delivery: CallbackDelivery) => MaybePromise<string | undefined>;
  logger?: ServerLogger;
}

export interface CallbackInput<T extends CallbackEventType = CallbackEventType> {
  type: T;
  appKey: string;
  /** notifyUrl of the trade, or the app's callback URL; null when there is none (the delivery fails at once, logged). */
  targetUrl: string | null;
  /** The event's data, as the webhook declares it (int64 ids as bigint are written exactly). */
  data: CallbackData<T>;
  /** When the event happened (epoch ms). Default now. */
  createTime?: number;
}

/** A built and validated event, not yet recorded: build it before changing state, so a payload bug changes nothing. */
export interface PreparedCallback {
  readonly delivery: CallbackDelivery;
}

export type ResendResult = { ok: true } | { ok: false; reason: string };

export interface CallbackSender {
  /** Builds the payload and checks it against its webhook in the spec; throws CallbackPayloadError when it does not fit. */
  prepare<T extends CallbackEventType>(input: CallbackInput<T>): PreparedCallback;
  /** Saves the delivery in the outbox and makes the first attempt. */
  enqueue(prepared: PreparedCallback): Promise<CallbackDelivery>;
  /** prepare, then enqueue. */
  send<T extends CallbackEventType>(input: CallbackInput<T>): Promise<CallbackDelivery>;
  /** One more attempt now, asked for by hand: a delivered or failed event goes back to pending for it. */
  resend(eventId: string): Promise<ResendResult>;
  /** Why a resend of this delivery cannot start now, or undefined. */
  resendProblem(delivery: CallbackDelivery): string | undefined;
  /** After a restart: schedules every pending delivery of the outbox; answers how many. */
  resume(): Promise<number>;
  /** Makes the attempts whose time has come by the sender's clock (after the clock was moved). */
  deliverDue(): void;
  /** Stops every timer and abandons attempts in flight (their outcome is not recorded); the outbox is left as it is. */
  reset(): void;
  /** Stops for good. */
  close(): void;
}

/** A callback payload that does not match its webhook schema: a bug of the server that built it. */
export class CallbackPayloadError extends MerchantOpenPlatformError {
  override readonly name = "CallbackPayloadError";
}

/** A target the policy refuses: the attempt fails with this reason, nothing is sent. */
class RefusedTarget extends MerchantOpenPlatformError {
  override readonly name = "RefusedTarget";
}

const httpsOnly = (url: string) => (/^https:\/\//i.test(url) ? undefined : "only https:// targets are contacted (the contract's notifyUrl rule; pass checkTarget to allow others)");

function payloadProblems(type: string, payload: unknown): string[] {
  const schemas = schemasFor("signed");
  const webhook = schemas.webhook(type);
  return webhook ? schemas.validate(webhook.pointer, payload) : [`the signed spec has no webhook for ${type}`];
}

/** Reads at most `limit` bytes of a body and drops the rest, so a huge answer costs nothing. */
async function bodyStart(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string | null> {
  if (!body) return null;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  if (size === 0) return null;
  // A cut through a multi-byte character becomes U+FFFD; the log is for reading, not parsing.
  return Buffer.concat(chunks).subarray(0, limit).toString("utf8");
}

function describeFetchError(error: unknown): string {
  if (error instanceof RefusedTarget) return `refused: ${error.message}`;
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

const isPromise = <T>(value: MaybePromise<T>): value is Promise<T> => value instanceof Promise;

export function createCallbackSender(options: CallbackSenderOptions): CallbackSender {
  if (typeof options?.apps !== "function") throw new ServerConfigError("apps", "createCallbackSender needs apps: (appKey) => { appSecrets } (the first secret signs).");
  const scheduleMs = options.scheduleMs ?? DEFAULT_CALLBACK_SCHEDULE_MS;
  if (!scheduleMs.every((delay) => Number.isFinite(delay) && delay >= 0)) throw new ServerConfigError("scheduleMs", "scheduleMs must list non-negative delays in ms.");
  const timeoutMs = options.timeoutMs ?? CALLBACK_TIMEOUT_MS;
  const now = options.now ?? Date.now;
  const formatTime = options.formatTime ?? formatUtcSeconds;
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const checkTarget = options.checkTarget ?? httpsOnly;
  const outbox = options.outbox ?? createMemoryCallbackOutbox();
  const logger = serverLogger(options.logger);
  /** Deliveries this sender is working on, by event id (an attempt due, or in flight). */
  const active = new Map<string, CallbackDelivery>();
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Map<string, AbortController>();
  let closed = false;
  let generation = 0;

  async function save(delivery: CallbackDelivery): Promise<void> {
    try {
      const saved = outbox.save(delivery);
      if (isPromise(saved)) await saved;
    } catch (error) {
      logger.error("The callback outbox could not save a delivery; it is still attempted, but would not survive a restart now.", { eventId: delivery.eventId, error });
    }
  }

  /** Runs an attempt; nothing it does may escape as an unhandled rejection. */
  function run(delivery: CallbackDelivery, trigger: CallbackAttempt["trigger"] = "scheduled"): void {
    attempt(delivery, trigger).catch((error: unknown) => logger.error("A callback attempt failed internally. This is a server bug.", { eventId: delivery.eventId, error }));
  }

  function schedule(delivery: CallbackDelivery, delayMs: number): void {
    clearTimeout(timers.get(delivery.eventId));
    active.set(delivery.eventId, delivery);
    const timer = setTimeout(() => {
      timers.delete(delivery.eventId);
      run(delivery);
    }, Math.max(0, delayMs));
    timer.unref();
    timers.set(delivery.eventId, timer);
  }

  async function secretOf(appKey: string): Promise<string | undefined> {
    const found = options.apps(appKey);
    const app = isPromise(found) ? await found : found;
    const secret = app?.appSecrets?.[0];
    return typeof secret === "string" && secret !== "" ? secret : undefined;
  }

  function markFailed(delivery: CallbackDelivery, reason: string): void {
    delivery.status = "failed";
    delivery.nextAttemptTime = null;
    delivery.failureReason = reason;
    active.delete(delivery.eventId);
  }

  /**
   * A shared outbox's lease for one attempt: the delivery brought up to date (another sender
   * may have made attempts), or false, and this sender lets it go, when it is not to be sent
   * from here now.
   */
  async function claimFor(delivery: CallbackDelivery): Promise<boolean> {
    let current: CallbackDelivery | undefined;
    try {
      const claimed = outbox.claim!(delivery);
      current = isPromise(claimed) ? await claimed : claimed;
    } catch (error) {
      logger.error("The callback outbox could not lease a delivery; the attempt waits for the next poll.", { eventId: delivery.eventId, error });
      current = undefined;
    }
    if (current === undefined || current.status !== "pending" || current.targetUrl === null) {
      clearTimeout(timers.get(delivery.eventId));
      timers.delete(delivery.eventId);
      active.delete(delivery.eventId);
      return false;
    }
    if (current !== delivery) Object.assign(delivery, current);
    return true;
  }

  async function attempt(delivery: CallbackDelivery, trigger: CallbackAttempt["trigger"]): Promise<void> {
    const { eventId } = delivery;
    if (closed || inFlight.has(eventId) || delivery.status !== "pending" || delivery.targetUrl === null) return;
    const started = now();
    const startedPerf = performance.now();
    const controller = new AbortController();
    inFlight.set(eventId, controller);
    const myGeneration = generation;
    if (outbox.claim && !(await claimFor(delivery))) {
      inFlight.delete(eventId);
      return;
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    timer.unref();
    let httpStatus: number | null = null;
    let error: string | null = null;
    let responseBody: string | null = null;
    let sentHeaders: Record<string, string> = {};
    try {
      const refused = await checkTarget(delivery.targetUrl, delivery);
      if (refused !== undefined) throw new RefusedTarget(refused);
      const secret = await secretOf(delivery.appKey);
      if (secret === undefined) throw new RefusedTarget(`the app ${delivery.appKey} has no secret to sign with`);
      const headers = signRequestHeaders({ appKey: delivery.appKey, appSecret: secret, body: delivery.body, now });
      sentHeaders = { ...headers };
      const response = await send(delivery.targetUrl, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: delivery.body,
        redirect: "manual",
        signal: controller.signal,
      });
      httpStatus = response.status;
      if (response.status >= 200 && response.status < 300) await response.body?.cancel().catch(() => {});
      else responseBody = await bodyStart(response.body, RESPONSE_BODY_KEPT_BYTES).catch(() => null);
    } catch (caught) {
      error = timedOut ? `no answer within ${timeoutMs} ms` : describeFetchError(caught);
    } finally {
      clearTimeout(timer);
      inFlight.delete(eventId);
    }
    if (closed || myGeneration !== generation) return;
    const acknowledged = httpStatus !== null && httpStatus >= 200 && httpStatus < 300;
    if (httpStatus !== null && !acknowledged) error = httpStatus >= 300 && httpStatus < 400 ? `redirect (HTTP ${httpStatus}) is not an acknowledgement` : `HTTP ${httpStatus}`;
    const durationMs = Math.round(performance.now() - startedPerf);
    delivery.attempts.push({ attempt: delivery.attempts.length + 1, time: started, durationMs, httpStatus, error, responseBody, acknowledged, trigger, headers: sentHeaders });
    logger.debug("Callback attempt.", { eventId, type: delivery.type, attempt: delivery.attempts.length, trigger, httpStatus, error, durationMs });
    if (acknowledged) {
      delivery.status = "delivered";
      delivery.nextAttemptTime = null;
      active.delete(eventId);
      await save(delivery);
      return;
    }
    const delay = scheduleMs[delivery.attempts.length - 1];
    if (delay === undefined) {
      markFailed(delivery, `not acknowledged after ${delivery.attempts.length} attempts`);
      logger.warn("Callback given up: marked failed.", { eventId, type: delivery.type, targetUrl: delivery.targetUrl, attempts: delivery.attempts.length, lastError: error });
      await save(delivery);
      return;
    }
    delivery.nextAttemptTime = now() + delay;
    await save(delivery);
    if (!closed && myGeneration === generation) schedule(delivery, delay);
  }

  const sender: CallbackSender = {
    prepare(input) {
      const createTime = input.createTime ?? now();
      const eventId = newEventId();
      const payload = { id: eventId, type: input.type, createTime: formatTime(createTime), data: input.data };
      const problems = payloadProblems(input.type, withBigIntsAsNumbers(payload));
      if (problems.length > 0) throw new CallbackPayloadError(`the ${input.type} callback payload does not match its webhook schema: ${problems.join("; ")}`);
      const data = input.data as { tradeNo?: unknown; applicationId?: unknown };
      return {
        delivery: {
          eventId,
          type: input.type,
          appKey: input.appKey,
          targetUrl: input.targetUrl,
          tradeNo: typeof data.tradeNo === "string" ? data.tradeNo : null,
          applicationId: typeof data.applicationId === "bigint" ? data.applicationId : typeof data.applicationId === "number" ? BigInt(data.applicationId) : null,
          body: stringifyExactJson(payload),
          createTime,
          status: "pending",
          attempts: [],
          nextAttemptTime: null,
          failureReason: null,
        },
      };
    },

    async enqueue({ delivery }) {
      // Synchronous until the first await, with a synchronous app lookup and outbox (the
      // sandbox's): the delivery is saved and its state final before enqueue returns a promise.
      const found = delivery.targetUrl === null ? undefined : options.apps(delivery.appKey);
      const app = isPromise(found) ? await found : found;
      const cannot = delivery.targetUrl === null ? "the app has no callbackUrl" : typeof app?.appSecrets?.[0] !== "string" || app.appSecrets[0] === "" ? "the app has no secret to sign with" : undefined;
      if (cannot !== undefined) {
        markFailed(delivery, cannot);
        logger.warn("Callback cannot be sent: marked failed.", { eventId: delivery.eventId, type: delivery.type, reason: cannot });
        await save(delivery);
        return delivery;
      }
      delivery.nextAttemptTime = now();
      const saved = save(delivery);
      if (!closed) schedule(delivery, 0);
      await saved;
      return delivery;
    },

    send(input) {
      return sender.enqueue(sender.prepare(input));
    },

    resendProblem(delivery) {
      if (delivery.targetUrl === null) return delivery.failureReason ?? "the event has no target";
      if (inFlight.has(delivery.eventId)) return "an attempt is in flight; wait for its answer";
      if (closed) return "the sender is stopping";
      return undefined;
    },

    async resend(eventId) {
      const found = outbox.get(eventId);
      const delivery = active.get(eventId) ?? (isPromise(found) ? await found : found);
      if (!delivery) return { ok: false, reason: `no callback event ${eventId}` };
      const problem = sender.resendProblem(delivery);
      if (problem !== undefined) return { ok: false, reason: problem };
      clearTimeout(timers.get(eventId));
      timers.delete(eventId);
      delivery.status = "pending";
      delivery.failureReason = null;
      delivery.nextAttemptTime = now();
      active.set(eventId, delivery);
      run(delivery, "manual");
      return { ok: true };
    },

    async resume() {
      const found = outbox.pending();
      const pending = isPromise(found) ? await found : found;
      let resumed = 0;
      for (const delivery of pending) {
        // One this sender works on already (due, in flight, or being saved after an attempt) is left to it.
        if (delivery.status !== "pending" || active.has(delivery.eventId) || timers.has(delivery.eventId) || inFlight.has(delivery.eventId)) continue;
        schedule(delivery, (delivery.nextAttemptTime ?? now()) - now());
        resumed += 1;
      }
      if (resumed > 0) logger.info("Callback deliveries resumed from the outbox.", { resumed });
      return resumed;
    },

    deliverDue() {
      const at = now();
      for (const delivery of active.values()) {
        if (delivery.status === "pending" && delivery.nextAttemptTime !== null && delivery.nextAttemptTime <= at && !inFlight.has(delivery.eventId)) {
          clearTimeout(timers.get(delivery.eventId));
          timers.delete(delivery.eventId);
          run(delivery);
        }
      }
    },

    reset() {
      generation += 1;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const controller of inFlight.values()) controller.abort();
      inFlight.clear();
      active.clear();
    },

    close() {
      closed = true;
      sender.reset();
    },
  };
  return sender;
}
