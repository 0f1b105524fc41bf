// When a failed attempt may be repeated, and how long to wait first.
//
// Only safe calls are repeated: GET operations, and POSTs the contract makes idempotent
// (createCashierSession, on outTradeNo; DESIGN item 7). Never createOrder, payOrder,
// refundOrder, ...: a lost answer does not mean the order was not created.
//
// Waits use exponential back-off with full jitter (a uniform wait between 0 and
// min(maxDelayMs, baseDelayMs * 2^retry)), which spreads the retries of many clients instead
// of having them hit a recovering service in step. A Retry-After from the service is a floor;
// if it asks for more than maxDelayMs the retries end and the last answer stands.
import { NetworkError, TimeoutError } from "./errors.js";
import type { ResolvedRetry } from "./options.js";
import { isReadAnswer, type AnswerText } from "./transport.js";

/** HTTP statuses that say "try again later" without the request having taken effect. */
export const RETRYABLE_HTTP_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** What the retry judge reads of an answer. */
type JudgedAnswer = Response | AnswerText;

/** One attempt's outcome: an answer, or what was thrown. */
export type AttemptOutcome<R> = { ok: true; result: R; response: JudgedAnswer } | { ok: false; error: unknown };

export interface RetryJudge {
  /** The envelope code that means "rate limited" (100006 signed, 429 key-based). */
  rateLimitedCode: number;
  /** The clock in epoch ms, for a Retry-After given as an HTTP date. */
  now: () => number;
}

/**
 * Whether the outcome may be retried, and the Retry-After it carries (ms), if any.
 * Only a missing answer (network, timeout) or a "come back later" answer qualifies.
 */
export function retryVerdict<R>(outcome: AttemptOutcome<R>, judge: RetryJudge): { retry: boolean; retryAfterMs?: number } {
  if (!outcome.ok) return { retry: outcome.error instanceof NetworkError || outcome.error instanceof TimeoutError };
  const { response } = outcome;
  const rateLimited = envelopeCode(response) === judge.rateLimitedCode;
  if (!RETRYABLE_HTTP_STATUSES.has(response.status) && !rateLimited) return { retry: false };
  const retryAfterMs = parseRetryAfter(response.headers.get("retry-after"), judge.now());
  return retryAfterMs === undefined ? { retry: true } : { retry: true, retryAfterMs };
}

/** The envelope code of an answer, if it is a JSON envelope; undefined otherwise. */
function envelopeCode(response: JudgedAnswer): number | undefined {
  if (!isReadAnswer(response)) return undefined;
  let body: unknown;
  try {
    body = response.parsedBody();
  } catch {
    return undefined;
  }
  const code = typeof body === "object" && body !== null ? (body as { code?: unknown }).code : undefined;
  return typeof code === "number" ? code : undefined;
}

/**
 * Retry-After as milliseconds from now: delta-seconds ("120") or an HTTP date. undefined when
 * absent or unreadable (then the back-off alone decides).
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - nowMs);
}

/** The full-jitter back-off before retry number `retry` (0 for the first retry). */
export function backoffDelay(retry: number, settings: Pick<ResolvedRetry, "baseDelayMs" | "maxDelayMs" | "random">): number {
  const cap = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** retry);
  const r = settings.random();
  // An injected random outside [0, 1) must not push the wait outside [0, cap].
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.floor(unit * cap);
}

/**
 * The wait before retry number `retry`, or undefined when the retries should end because the
 * service asked for a longer wait than maxDelayMs allows.
 */
export function retryDelay(retry: number, settings: ResolvedRetry, retryAfterMs: number | undefined): number | undefined {
  const jittered = backoffDelay(retry, settings);
  if (retryAfterMs === undefined) return jittered;
  if (retryAfterMs > settings.maxDelayMs) return undefined;
  return Math.max(retryAfterMs, jittered);
}

/**
 * Runs attempt() until it gives an outcome that is final: success, a non-retryable failure,
 * or the last allowed retry. Returns the last answer or throws the last error. `canRetry`
 * false makes it a single attempt (the operation is not safe to repeat).
 */
export async function withRetries<R extends { response: JudgedAnswer }>(
  attempt: () => Promise<R>,
  options: { canRetry: boolean; settings: ResolvedRetry; judge: RetryJudge; signal?: AbortSignal | undefined },
): Promise<R> {
  const { canRetry, settings, judge, signal } = options;
  for (let retry = 0; ; retry++) {
    let outcome: AttemptOutcome<R>;
    try {
      const result = await attempt();
      outcome = { ok: true, result, response: result.response };
    } catch (error) {
      outcome = { ok: false, error };
    }
    const verdict = canRetry && retry < settings.retries ? retryVerdict(outcome, judge) : { retry: false };
    const delay = verdict.retry ? retryDelay(retry, settings, verdict.retryAfterMs) : undefined;
    if (delay === undefined) {
      if (outcome.ok) return outcome.result;
      throw outcome.error;
    }
    await settings.sleep(delay, signal);
    if (signal?.aborted) throw signal.reason;
  }
}
