// Callback delivery (DESIGN item 8): at least once, signed like requests with a fresh timestamp
// and nonce per attempt, the same event id and the same bytes on every attempt. Any 2xx within
// the timeout acknowledges; a redirect, 4xx, 5xx, timeout or refused connection is retried on
// the schedule; after the last attempt the event is marked failed. Every attempt is logged.
//
// Retries wait on unref'd timers, and also fire when the sandbox clock is advanced past their
// due time, so the 24-hour default schedule can be walked through with the control API.
import { randomBytes } from "node:crypto";
import { signRequestHeaders } from "../../signing/index.js";
import type { SandboxClock } from "../clock.js";
import { formatPlatformTime } from "../clock.js";
import { stringifyExactJson, toNumberCopy } from "../../server/index.js";
import type { SandboxLogger } from "../logger.js";
import { schemasFor } from "../../contract/index.js";
import { MerchantOpenPlatformError } from "../../errors.js";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** DESIGN item 8: 15 retries over about 24 h after the first attempt. */
export const DEFAULT_CALLBACK_SCHEDULE_MS: readonly number[] = [
  15 * SECOND, 15 * SECOND, 30 * SECOND, 3 * MINUTE, 10 * MINUTE, 20 * MINUTE, 30 * MINUTE, 30 * MINUTE,
  30 * MINUTE, 60 * MINUTE, 3 * HOUR, 3 * HOUR, 3 * HOUR, 6 * HOUR, 6 * HOUR,
];

import type { CallbackEventType } from "../../callbacks/index.js";

export type { CallbackEventType };

/** Errors of a payload (bigints as Numbers) against its webhook's schema in the signed spec. */
function payloadProblems(type: CallbackEventType, payload: unknown): string[] {
  const schemas = schemasFor("signed");
  const webhook = schemas.webhook(type);
  return webhook ? schemas.validate(webhook.pointer, payload) : [`the signed spec has no webhook for ${type}`];
}

export interface CallbackAttempt {
  attempt: number;
  /** When the attempt started (sandbox clock, epoch ms). */
  time: number;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
  /** The first bytes (RESPONSE_BODY_KEPT_BYTES) of a failed answer's body, as text; null when acknowledged or none. */
  responseBody: string | null;
  acknowledged: boolean;
  /** "manual" for a resend from the dashboard, "scheduled" for the first attempt and the retries. */
  trigger: "scheduled" | "manual";
  /** The signature headers sent (X-App-Key, X-Timestamp, X-Nonce, X-Sign); empty when nothing was sent. */
  headers: Record<string, string>;
}

/** How much of a failed answer's body an attempt keeps: enough for a receiver's one-line reason. */
export const RESPONSE_BODY_KEPT_BYTES = 200;

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

/**
 * One callback as the sandbox sends it: the event, its target and every attempt (the control
 * API's CallbackDelivery). Not the payload: that is CallbackEvent of the callbacks part.
 */
export interface CallbackDeliveryRecord {
  eventId: string;
  type: CallbackEventType;
  appKey: string;
  targetUrl: string | null;
  tradeNo: string | null;
  applicationId: bigint | null;
  /** The exact bytes sent on every attempt. */
  body: string;
  createTime: number;
  status: "pending" | "delivered" | "failed";
  attempts: CallbackAttempt[];
  nextAttemptTime: number | null;
  failureReason: string | null;
}

export interface CallbackInput {
  type: CallbackEventType;
  appKey: string;
  /** The app's first secret; it signs the callback. */
  secret: string | undefined;
  targetUrl: string | null;
  /** When the event happened (sandbox clock). */
  createTime: number;
  /** The event's data object, with exact (bigint) ids. */
  data: Record<string, unknown>;
  tradeNo?: string;
  applicationId?: bigint;
}

/** A validated event, built before the state changes so that a bad payload changes nothing. */
export interface PreparedCallback {
  readonly event: CallbackDeliveryRecord;
  readonly secret: string | undefined;
}

export interface CallbackDispatcherOptions {
  clock: SandboxClock;
  logger: SandboxLogger;
  scheduleMs: readonly number[];
  timeoutMs: number;
  fetch: typeof fetch;
  /** Why a target may not be contacted now (checked before every attempt), or undefined. */
  checkTarget?: (url: string) => Promise<string | undefined>;
}

export interface CallbackDispatcher {
  /** Builds and validates an event against its webhook schema; throws when it does not fit (a sandbox bug). */
  prepare(input: CallbackInput): PreparedCallback;
  /** Records the event and makes the first attempt. */
  dispatch(prepared: PreparedCallback): CallbackDeliveryRecord;
  event(eventId: string): CallbackDeliveryRecord | undefined;
  events(): CallbackDeliveryRecord[];
  /**
   * One more attempt now, for the dashboard's resend button: a delivered or failed event goes
   * back to pending for it. Answers why not when it cannot be sent.
   */
  resend(eventId: string): { ok: true } | { ok: false; reason: string };
  /** Makes the attempts that the advanced sandbox clock has made due. */
  clockAdvanced(): void;
  /** Forgets every event and stops every pending attempt (state reset). */
  reset(): void;
  /** Stops for good: clears timers, aborts attempts in flight. */
  close(): void;
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export function newEventId(): string {
  const bytes = randomBytes(24);
  let id = "evt_";
  for (const byte of bytes) id += ALPHANUMERIC[byte % ALPHANUMERIC.length];
  return id;
}

/** A target the policy refuses: the attempt fails with this reason, nothing is sent. */
class RefusedTarget extends MerchantOpenPlatformError {
  override readonly name = "RefusedTarget";
}

function describeFetchError(error: unknown): string {
  if (error instanceof RefusedTarget) return `refused: ${error.message}`;
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ""}`;
  return error instanceof Error ? error.message : String(error);
}

export function createCallbackDispatcher(options: CallbackDispatcherOptions): CallbackDispatcher {
  const { clock, logger, scheduleMs, timeoutMs } = options;
  const events = new Map<string, { event: CallbackDeliveryRecord; secret: string | undefined }>();
  const timers = new Map<string, NodeJS.Timeout>();
  const inFlight = new Map<string, AbortController>();
  let closed = false;
  let generation = 0;

  /** Runs an attempt; nothing it does may escape as an unhandled rejection. */
  function run(eventId: string, trigger: CallbackAttempt["trigger"] = "scheduled"): void {
    attempt(eventId, trigger).catch((error: unknown) => logger.error("Callback attempt failed internally. This is a sandbox bug.", { eventId, error }));
  }

  function schedule(eventId: string, delayMs: number): void {
    const timer = setTimeout(() => {
      timers.delete(eventId);
      run(eventId);
    }, Math.max(0, delayMs));
    timer.unref();
    timers.set(eventId, timer);
  }

  async function attempt(eventId: string, trigger: CallbackAttempt["trigger"]): Promise<void> {
    const entry = events.get(eventId);
    if (closed || !entry || inFlight.has(eventId)) return;
    const { event, secret } = entry;
    if (event.status !== "pending" || event.targetUrl === null || secret === undefined) return;
    const started = clock.now();
    const startedPerf = performance.now();
    const controller = new AbortController();
    inFlight.set(eventId, controller);
    const myGeneration = generation;
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
      const refused = options.checkTarget ? await options.checkTarget(event.targetUrl) : undefined;
      if (refused !== undefined) throw new RefusedTarget(refused);
      const headers = signRequestHeaders({ appKey: event.appKey, appSecret: secret, body: event.body, now: () => clock.now() });
      sentHeaders = { ...headers };
      const response = await options.fetch(event.targetUrl, {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: event.body,
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
    event.attempts.push({ attempt: event.attempts.length + 1, time: started, durationMs: Math.round(performance.now() - startedPerf), httpStatus, error, responseBody, acknowledged, trigger, headers: sentHeaders });
    if (acknowledged) {
      event.status = "delivered";
      event.nextAttemptTime = null;
      return;
    }
    const retryIndex = event.attempts.length - 1;
    const delay = scheduleMs[retryIndex];
    if (delay === undefined) {
      event.status = "failed";
      event.nextAttemptTime = null;
      event.failureReason = `not acknowledged after ${event.attempts.length} attempts`;
      logger.warn("Callback given up: marked failed.", { eventId, type: event.type, targetUrl: event.targetUrl, attempts: event.attempts.length });
      return;
    }
    event.nextAttemptTime = clock.now() + delay;
    schedule(eventId, delay);
  }

  return {
    prepare(input) {
      const eventId = newEventId();
      const payload = { id: eventId, type: input.type, createTime: formatPlatformTime(input.createTime), data: input.data };
      const problems = payloadProblems(input.type, toNumberCopy(payload));
      if (problems.length > 0) {
        throw new Error(`the ${input.type} callback payload does not match its webhook schema: ${problems.join("; ")}`);
      }
      return {
        secret: input.secret,
        event: {
          eventId,
          type: input.type,
          appKey: input.appKey,
          targetUrl: input.targetUrl,
          tradeNo: input.tradeNo ?? null,
          applicationId: input.applicationId ?? null,
          body: stringifyExactJson(payload),
          createTime: input.createTime,
          status: "pending",
          attempts: [],
          nextAttemptTime: null,
          failureReason: null,
        },
      };
    },
    dispatch(prepared) {
      const { event, secret } = prepared;
      events.set(event.eventId, { event, secret });
      if (event.targetUrl === null || secret === undefined) {
        event.status = "failed";
        event.failureReason = event.targetUrl === null ? "the app has no callbackUrl" : "the app has no secret to sign with";
        logger.warn("Callback cannot be sent: marked failed.", { eventId: event.eventId, type: event.type, reason: event.failureReason });
        return event;
      }
      event.nextAttemptTime = clock.now();
      if (!closed) schedule(event.eventId, 0);
      return event;
    },
    resend(eventId) {
      const entry = events.get(eventId);
      if (!entry) return { ok: false, reason: `no callback event ${eventId}` };
      const { event, secret } = entry;
      if (event.targetUrl === null || secret === undefined) return { ok: false, reason: event.failureReason ?? "the event cannot be sent" };
      if (inFlight.has(eventId)) return { ok: false, reason: "an attempt is in flight; wait for its answer" };
      if (closed) return { ok: false, reason: "the sandbox is stopping" };
      clearTimeout(timers.get(eventId));
      timers.delete(eventId);
      event.status = "pending";
      event.failureReason = null;
      event.nextAttemptTime = clock.now();
      run(eventId, "manual");
      return { ok: true };
    },
    event: (eventId) => events.get(eventId)?.event,
    events: () => [...events.values()].map((entry) => entry.event),
    clockAdvanced() {
      const now = clock.now();
      for (const { event } of events.values()) {
        if (event.status === "pending" && event.nextAttemptTime !== null && event.nextAttemptTime <= now && !inFlight.has(event.eventId)) {
          clearTimeout(timers.get(event.eventId));
          timers.delete(event.eventId);
          run(event.eventId);
        }
      }
    },
    reset() {
      generation += 1;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const controller of inFlight.values()) controller.abort();
      inFlight.clear();
      events.clear();
    },
    close() {
      closed = true;
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      for (const controller of inFlight.values()) controller.abort();
      inFlight.clear();
    },
  };
}
