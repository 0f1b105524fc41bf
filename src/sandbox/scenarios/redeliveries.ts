// Callbacks that go wrong on purpose (redeliverCallback, docs/scenarios.md): an event sent again
// to its target as a variant a receiver must handle (an exact duplicate, reordered members, a
// tampered body, a wrong secret, a stale timestamp: merchant-open-platform/callbacks'
// testDelivery), now, late, or as duplicates on a schedule. Times are on the sandbox clock: a
// timer sends what real time makes due, and a clock move sends everything it passed, in order.
// Each delivery is kept, marked with its variant and what a correct receiver answers; none of
// them touches the event's status or its retries (those belong to the callback sender).
import { expectedAnswer, testDelivery, type CallbackVariant } from "../../callbacks/index.js";
import { formatPlatformTime } from "../clock.js";
import type { CallbackDeliveryRecord } from "../callbacks/dispatcher.js";
import type { Clock } from "../clock.js";
import { maskHeader } from "../dashboard/masking.js";
import { signedError } from "../errors.js";

/** Redeliveries kept per event; past it the oldest sent one makes room, else 100018. */
export const MAX_REDELIVERIES_PER_EVENT = 100;
/** As much of a refusing answer as the delivery log keeps of an attempt's. */
const KEPT_ANSWER_BYTES = 200;

export interface RedeliveryRequest {
  variant: CallbackVariant;
  afterSeconds: number;
  times: number;
  everySeconds: number;
}

export interface RedeliveryRecord {
  redeliveryId: string;
  eventId: string;
  variant: CallbackVariant;
  status: "scheduled" | "sending" | "sent" | "refused";
  dueTime: number;
  time: number | null;
  durationMs: number | null;
  httpStatus: number | null;
  error: string | null;
  responseBody: string | null;
  acknowledged: boolean | null;
  expected: "acknowledged" | "refused";
  asExpected: boolean | null;
  headers: Record<string, string>;
  body: string | null;
}

/** What redeliveries read of the running sandbox (a part of SandboxContext). */
export interface RedeliveryContext {
  clock: Clock;
  callbacks: { event(eventId: string): CallbackDeliveryRecord | undefined | Promise<CallbackDeliveryRecord | undefined> };
  records: { app(appKey: string): { appSecrets: readonly string[] } | undefined };
}

/** How variant deliveries reach a receiver: the sandbox's own fetch, timeout and notify-target policy. */
export interface CallbackTransport {
  fetch: typeof fetch;
  timeoutMs: number;
  /** Why a target may not be contacted now, or undefined. */
  checkTarget: (url: string) => Promise<string | undefined>;
}

async function answerStart(response: Response): Promise<string | null> {
  const bytes = Buffer.from(await response.arrayBuffer().catch(() => new ArrayBuffer(0)));
  return bytes.length === 0 ? null : bytes.subarray(0, KEPT_ANSWER_BYTES).toString("utf8");
}

export class Redeliveries {
  private byEvent = new Map<string, RedeliveryRecord[]>();
  /** Each event's app, for a reset of one app. */
  private appOf = new Map<string, string>();
  private lastId = 0;
  /** The sends in flight, so that a clock move awaits nothing twice. */
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly transport: CallbackTransport,
    private readonly later: (ms: number, task: () => void) => () => void,
  ) {}

  of(eventId: string): readonly RedeliveryRecord[] {
    return this.byEvent.get(eventId) ?? [];
  }

  /**
   * Schedules `times` deliveries of the variant; sends those due now (in order) and answers the
   * records once they are sent.
   */
  async redeliver(ctx: RedeliveryContext, event: CallbackDeliveryRecord, request: RedeliveryRequest): Promise<RedeliveryRecord[]> {
    if (event.targetUrl === null) throw signedError("VALIDATION_FAILED", `path.eventId: event ${event.eventId} has no target (${event.failureReason ?? "the app has no callbackUrl"}), so nothing can be redelivered.`);
    const kept = this.byEvent.get(event.eventId) ?? [];
    for (let overflow = kept.length + request.times - MAX_REDELIVERIES_PER_EVENT; overflow > 0; overflow--) {
      const sent = kept.findIndex((record) => record.status === "sent" || record.status === "refused");
      if (sent === -1) {
        throw signedError("APP_QUOTA_EXCEEDED", `event ${event.eventId}: ${MAX_REDELIVERIES_PER_EVENT} redeliveries are kept and not enough of them are sent to make room for ${request.times} more; wait for them, or reset the sandbox.`);
      }
      kept.splice(sent, 1);
    }
    const now = ctx.clock.now();
    const made: RedeliveryRecord[] = [];
    for (let i = 0; i < request.times; i++) {
      const record: RedeliveryRecord = {
        redeliveryId: `rdl_${++this.lastId}`,
        eventId: event.eventId,
        variant: request.variant,
        status: "scheduled",
        dueTime: now + (request.afterSeconds + i * request.everySeconds) * 1000,
        time: null,
        durationMs: null,
        httpStatus: null,
        error: null,
        responseBody: null,
        acknowledged: null,
        expected: expectedAnswer(request.variant),
        asExpected: null,
        headers: {},
        body: null,
      };
      kept.push(record);
      made.push(record);
      if (record.dueTime > now) this.later(record.dueTime - now, () => void this.sendDue(ctx));
    }
    kept.sort((a, b) => a.dueTime - b.dueTime);
    this.byEvent.set(event.eventId, kept);
    this.appOf.set(event.eventId, event.appKey);
    await this.sendDue(ctx);
    return made;
  }

  /**
   * Sends every scheduled redelivery the sandbox clock has made due, oldest due first, one after
   * the other (after any sends already in flight). Called by the timers and by a clock move.
   */
  sendDue(ctx: RedeliveryContext): Promise<void> {
    this.sending = this.sending.then(async () => {
      for (;;) {
        const now = ctx.clock.now();
        const next = [...this.byEvent.values()].flat().filter((record) => record.status === "scheduled" && record.dueTime <= now).sort((a, b) => a.dueTime - b.dueTime)[0];
        if (!next) return;
        await this.send(ctx, next);
      }
    });
    return this.sending;
  }

  private async send(ctx: RedeliveryContext, record: RedeliveryRecord): Promise<void> {
    record.status = "sending";
    record.time = ctx.clock.now();
    const event = await ctx.callbacks.event(record.eventId);
    const secret = event ? ctx.records.app(event.appKey)?.appSecrets[0] : undefined;
    const refusal = !event || event.targetUrl === null ? "the event is gone" : secret === undefined ? `the app ${event.appKey} has no secret to sign with` : await this.transport.checkTarget(event.targetUrl);
    if (refusal !== undefined || !event || event.targetUrl === null || secret === undefined) {
      record.status = "refused";
      record.error = `refused: ${refusal ?? "no target"}`;
      return;
    }
    const delivery = testDelivery(record.variant, { appKey: event.appKey, appSecret: secret, body: event.body, now: () => ctx.clock.now() });
    record.headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, maskHeader(name, value)]));
    record.body = delivery.body === event.body ? null : delivery.body;
    const started = performance.now();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.transport.timeoutMs);
    timer.unref();
    try {
      const response = await this.transport.fetch(event.targetUrl, {
        method: "POST",
        headers: { ...delivery.headers, "Content-Type": "application/json" },
        body: delivery.body,
        redirect: "manual",
        signal: controller.signal,
      });
      record.httpStatus = response.status;
      record.acknowledged = response.status >= 200 && response.status < 300;
      if (record.acknowledged) await response.body?.cancel().catch(() => {});
      else record.responseBody = await answerStart(response);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      record.error = controller.signal.aborted ? `no answer within ${this.transport.timeoutMs} ms` : (cause?.code ?? (error as Error).message);
      record.acknowledged = false;
    } finally {
      clearTimeout(timer);
    }
    record.durationMs = Math.round(performance.now() - started);
    record.asExpected = record.acknowledged === (record.expected === "acknowledged");
    record.status = "sent";
  }

  /** A state reset: every redelivery forgotten (one in flight finishes unrecorded), ids from 1; or those of one app's events. */
  reset(appKey?: string): void {
    if (appKey !== undefined) {
      for (const [eventId, app] of this.appOf) {
        if (app !== appKey) continue;
        this.byEvent.delete(eventId);
        this.appOf.delete(eventId);
      }
      return;
    }
    this.byEvent = new Map();
    this.appOf = new Map();
    this.lastId = 0;
  }
}

/** The control API's view of one redelivery (Redelivery in the control spec). */
export function redeliveryView(record: RedeliveryRecord) {
  return {
    redeliveryId: record.redeliveryId,
    variant: record.variant,
    // In flight is not yet sent.
    status: record.status === "sending" ? ("scheduled" as const) : record.status,
    dueTime: formatPlatformTime(record.dueTime),
    time: record.time === null ? null : formatPlatformTime(record.time),
    durationMs: record.durationMs,
    httpStatus: record.httpStatus,
    error: record.error,
    responseBody: record.responseBody,
    acknowledged: record.acknowledged,
    expected: record.expected,
    asExpected: record.asExpected,
    headers: record.headers,
    body: record.body,
  };
}
