// The sandbox's callbacks, sent by the server kit's callback sender (src/server/callback-sender.ts:
// DESIGN item 8's signing, schedule, event id and acknowledgement, one implementation for the
// sandbox and for a platform built on the kit). What the sandbox adds: its clock (attempts
// due when the control API moves it run then, so the 24-hour schedule can be walked through),
// its notify-target policy, its records' callback log as the outbox (in memory, or in
// PostgreSQL shared by every instance, each attempt claimed by one of them), the delivery log
// the control API and the dashboard read, resend, and reset per app.
//
// A delivery enters the log in the transaction that caused it (a payment, a review), so it is
// sent only if that change is kept; dispatch() hands it to the sender after the commit. With a
// shared log, every instance polls it for deliveries that are due and not held by another (one
// left by an instance that stopped, or whose time came on another instance's moved clock).
import type { SandboxClock } from "../clock.js";
import { formatPlatformTime } from "../clock.js";
import {
  createCallbackSender,
  type CallbackAppLookup,
  type CallbackAttempt,
  type CallbackDelivery,
  type CallbackEventType,
  type ResendResult,
} from "../../server/index.js";
import type { SandboxLogger } from "../logger.js";
import type { CallbackLogFilter, SandboxCallbackLog } from "../store/types.js";
import { createMemoryCallbackLog } from "../store/memory-outbox.js";

export { DEFAULT_CALLBACK_SCHEDULE_MS, newEventId, RESPONSE_BODY_KEPT_BYTES } from "../../server/index.js";
export type { CallbackAttempt, CallbackEventType };

/**
 * One callback as the sandbox sends it: the event, its target and every attempt (the control
 * API's CallbackDelivery): the kit's delivery. Not the payload: that is CallbackEvent of the
 * callbacks part.
 */
export type CallbackDeliveryRecord = CallbackDelivery;

export interface CallbackInput {
  type: CallbackEventType;
  appKey: string;
  /** The app's first secret; used only by a dispatcher made without `apps` (with `apps`, the app's first secret is read at each attempt). */
  secret?: string | undefined;
  targetUrl: string | null;
  /** When the event happened (sandbox clock). */
  createTime: number;
  /** The event's data object, with exact (bigint) ids. */
  data: Record<string, unknown>;
}

/** A validated event, built before the state changes so that a bad payload changes nothing. */
export interface PreparedCallback {
  readonly event: CallbackDeliveryRecord;
}

export interface CallbackDispatcherOptions {
  clock: SandboxClock;
  logger: SandboxLogger;
  scheduleMs: readonly number[];
  timeoutMs: number;
  fetch: typeof fetch;
  /** The records' callback log: the outbox the sender saves to and claims from. Default: one in memory. */
  log?: SandboxCallbackLog;
  /** The apps, whose first secret signs each attempt (read at each attempt, so a rotation applies to retries). Default: the secret given to prepare. */
  apps?: CallbackAppLookup;
  /** Why a target may not be contacted now (checked before every attempt), or undefined. */
  checkTarget?: (url: string, delivery: CallbackDelivery) => Promise<string | undefined>;
  /** With a log shared by several instances: how often to look for deliveries due that no instance holds. Default: never (a log of this process only). */
  pollIntervalMs?: number;
}

export interface CallbackDispatcher {
  /** Builds and validates an event against its webhook schema; throws when it does not fit (a sandbox bug). */
  prepare(input: CallbackInput): PreparedCallback;
  /** After the transaction that recorded the event committed: makes the first attempt. */
  dispatch(prepared: PreparedCallback): Promise<CallbackDeliveryRecord>;
  event(eventId: string): Promise<CallbackDeliveryRecord | undefined>;
  /** The delivery log, newest first. */
  events(filter?: CallbackLogFilter): Promise<CallbackDeliveryRecord[]>;
  /**
   * One more attempt now, for the dashboard's resend button: a delivered or failed event goes
   * back to pending for it. Answers why not when it cannot be sent.
   */
  resend(eventId: string): Promise<ResendResult>;
  /** Makes the attempts that the advanced sandbox clock has made due: every retry it passed, in turn. */
  clockAdvanced(): void;
  /** Before the records of every app are reset: stops every pending attempt (an app's reset needs nothing: its deliveries leave the log, and the sender lets them go). */
  reset(): void;
  /** Schedules the pending deliveries of the log (after a restart) and, with a shared log, starts polling it. */
  start(): Promise<void>;
  /** Stops for good: clears timers, aborts attempts in flight, lets go of the deliveries this instance held. */
  close(): Promise<void>;
}

export function createCallbackDispatcher(options: CallbackDispatcherOptions): CallbackDispatcher {
  const { logger } = options;
  const log = options.log ?? createMemoryCallbackLog();
  // One clock move can pass several retries of an event (docs/scenarios.md). The sender counts
  // a retry from when the attempt before it was made, i.e. from the moved clock, so after a
  // failed attempt made by a move the retry is counted from when that attempt was due instead,
  // and sent at once when the move passed it too: one large move sends every retry it made due.
  const dueTimes = new Map<string, number>();
  let movedTo: number | undefined;
  let catchUp: NodeJS.Immediate | undefined;
  const walkingLog: SandboxCallbackLog = {
    save(delivery) {
      const due = dueTimes.get(delivery.eventId);
      const delay = options.scheduleMs[delivery.attempts.length - 1];
      const walked = due === undefined || delay === undefined ? undefined : due + delay;
      if (delivery.status === "pending" && delivery.attempts.at(-1)?.trigger === "scheduled" && walked !== undefined && movedTo !== undefined && walked <= movedTo && delivery.nextAttemptTime !== null && walked < delivery.nextAttemptTime) {
        delivery.nextAttemptTime = walked;
        catchUp ??= setImmediate(() => {
          catchUp = undefined;
          if (!closed) sender.deliverDue();
        });
      }
      if (delivery.nextAttemptTime === null) dueTimes.delete(delivery.eventId);
      else dueTimes.set(delivery.eventId, delivery.nextAttemptTime);
      return log.save(delivery);
    },
    get: (eventId) => log.get(eventId),
    pending: () => log.pending(),
    claim: (delivery) => log.claim(delivery),
    list: (filter) => log.list(filter),
    release: () => log.release(),
    reopen: (eventId) => log.reopen(eventId),
  };
  // Without an app lookup (a dispatcher on its own, in tests), the secret given to prepare signs.
  const secrets = new Map<string, string>();
  const sender = createCallbackSender({
    apps: options.apps ?? ((appKey) => (secrets.has(appKey) ? { appSecrets: [secrets.get(appKey)!] } : undefined)),
    outbox: walkingLog,
    scheduleMs: options.scheduleMs,
    timeoutMs: options.timeoutMs,
    now: () => options.clock.now(),
    formatTime: formatPlatformTime,
    fetch: options.fetch,
    checkTarget: options.checkTarget ?? (() => undefined),
    logger,
  });
  let closed = false;
  let poller: NodeJS.Timeout | undefined;
  let polling = false;

  async function poll(): Promise<void> {
    if (polling || closed) return;
    polling = true;
    try {
      await sender.resume();
      sender.deliverDue();
    } catch (error) {
      logger.warn("The callback log could not be read; deliveries wait for the next poll.", { error });
    } finally {
      polling = false;
    }
  }

  return {
    prepare(input) {
      if (!options.apps && input.secret !== undefined) secrets.set(input.appKey, input.secret);
      return { event: sender.prepare({ type: input.type, appKey: input.appKey, targetUrl: input.targetUrl, createTime: input.createTime, data: input.data as never }).delivery };
    },
    async dispatch(prepared) {
      return sender.enqueue({ delivery: prepared.event });
    },
    async resend(eventId) {
      if (closed) return { ok: false, reason: "the sandbox is stopping" };
      const reason = await log.reopen(eventId);
      if (reason !== undefined) return { ok: false, reason };
      return sender.resend(eventId);
    },
    event: async (eventId) => (await log.list({ eventId, limit: 1 }))[0],
    events: (filter = {}) => log.list(filter),
    clockAdvanced() {
      movedTo = options.clock.now();
      sender.deliverDue();
      // Deliveries another instance scheduled (or none holds) become due here too.
      if (options.pollIntervalMs !== undefined) void poll();
    },
    reset() {
      sender.reset();
      dueTimes.clear();
    },
    async start() {
      await sender.resume();
      if (options.pollIntervalMs !== undefined && !closed && poller === undefined) {
        poller = setInterval(() => void poll(), options.pollIntervalMs);
        poller.unref();
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      clearInterval(poller);
      if (catchUp) clearImmediate(catchUp);
      sender.close();
      await log.release().catch((error: unknown) => logger.warn("Could not let go of the callback deliveries this instance held; another instance takes them when their lease ends.", { error }));
    },
  };
}
