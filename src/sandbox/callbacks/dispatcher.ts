// The sandbox's callbacks, sent by the server kit's callback sender (src/server/callback-sender.ts:
// DESIGN item 8's signing, schedule, event id and acknowledgement, one implementation for the
// sandbox and for a platform built on the kit). What the sandbox adds: its clock (attempts
// due when the control API moves it run then, so the 24-hour schedule can be walked through),
// its notify-target policy, an in-memory outbox read synchronously as the delivery log (the
// control API's listCallbackDeliveries, the dashboard), resend, and reset.
import type { SandboxClock } from "../clock.js";
import { formatPlatformTime } from "../clock.js";
import {
  createCallbackSender,
  createMemoryCallbackOutbox,
  type CallbackAppLookup,
  type CallbackAttempt,
  type CallbackDelivery,
  type CallbackEventType,
  type ResendResult,
} from "../../server/index.js";
import type { SandboxLogger } from "../logger.js";

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
  /**
   * The app's first secret. Used only by a dispatcher made without `apps`; with `apps` the
   * app's first secret is read at each attempt (a rotation applies to retries).
   */
  secret?: string | undefined;
  targetUrl: string | null;
  /** When the event happened (sandbox clock). */
  createTime: number;
  /** The event's data object, with exact (bigint) ids. */
  data: Record<string, unknown>;
  /** Read from `data` by the kit; kept for callers that pass them. */
  tradeNo?: string;
  applicationId?: bigint;
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
  /** Why a target may not be contacted now (checked before every attempt), or undefined. */
  checkTarget?: (url: string) => Promise<string | undefined>;
  /** The apps, whose first secret signs each attempt. Default: the secret given to prepare. */
  apps?: CallbackAppLookup;
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
  resend(eventId: string): ResendResult;
  /** Makes the attempts that the advanced sandbox clock has made due. */
  clockAdvanced(): void;
  /** Forgets every event and stops every pending attempt (state reset). */
  reset(): void;
  /** Stops for good: clears timers, aborts attempts in flight. */
  close(): void;
}

export function createCallbackDispatcher(options: CallbackDispatcherOptions): CallbackDispatcher {
  const outbox = createMemoryCallbackOutbox();
  // Without an app lookup (a dispatcher on its own, in tests), the secret given to prepare signs.
  const secrets = new Map<string, string>();
  const sender = createCallbackSender({
    apps: options.apps ?? ((appKey) => (secrets.has(appKey) ? { appSecrets: [secrets.get(appKey)!] } : undefined)),
    outbox,
    scheduleMs: options.scheduleMs,
    timeoutMs: options.timeoutMs,
    now: () => options.clock.now(),
    formatTime: formatPlatformTime,
    fetch: options.fetch,
    checkTarget: options.checkTarget ?? (() => undefined),
    logger: options.logger,
  });
  let closed = false;

  return {
    prepare(input) {
      if (!options.apps && input.secret !== undefined) secrets.set(input.appKey, input.secret);
      return { event: sender.prepare({ type: input.type, appKey: input.appKey, targetUrl: input.targetUrl, createTime: input.createTime, data: input.data as never }).delivery };
    },
    dispatch(prepared) {
      // The sandbox's app lookup and outbox are synchronous: the delivery is recorded (or marked
      // failed) before enqueue's promise is returned.
      void sender.enqueue({ delivery: prepared.event });
      return prepared.event;
    },
    resend(eventId) {
      const event = outbox.get(eventId);
      if (!event) return { ok: false, reason: `no callback event ${eventId}` };
      const problem = closed ? "the sandbox is stopping" : sender.resendProblem(event);
      if (problem !== undefined) return { ok: false, reason: problem };
      void sender.resend(eventId);
      return { ok: true };
    },
    event: (eventId) => outbox.get(eventId),
    events: () => outbox.list(),
    clockAdvanced: () => sender.deliverDue(),
    reset() {
      sender.reset();
      outbox.clear();
    },
    close() {
      closed = true;
      sender.close();
    },
  };
}
