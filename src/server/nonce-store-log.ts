// A nonce store that fails closed refuses signed requests (100006) while it cannot record
// nonces: Redis down, or the store full. The caller sees a 429; the operator must see why. This
// wrapper logs the store's failures (an error for "unavailable", a warning for "full") at once
// and then at most once per interval with a count, and says when the store answers again, so
// an outage is neither silent nor a log line per refused request.
import type { NonceStore, NonceUse } from "../signing/index.js";
import type { LevelledLogger } from "./logger.js";

/** At most one line per failure kind in this many ms while it lasts. */
export const STORE_FAILURE_LOG_INTERVAL_MS = 10_000;

type Failure = Extract<NonceUse, "unavailable" | "full">;

const MESSAGES: Record<Failure, { level: "error" | "warn"; message: string }> = {
  unavailable: { level: "error", message: "The nonce store is unavailable: signed requests are refused with 100006 until it answers again (replay protection fails closed)." },
  full: { level: "warn", message: "The nonce store is full for an app: its signed requests are refused with 100006 until nonces expire (replay protection fails closed)." },
};

export function logNonceStoreFailures(store: NonceStore, logger: LevelledLogger, now: () => number = Date.now): NonceStore {
  const state: Record<Failure, { since: number; lastLogged: number; refused: number } | undefined> = { unavailable: undefined, full: undefined };

  function failed(kind: Failure, appKey: string): void {
    const at = now();
    const current = (state[kind] ??= { since: at, lastLogged: -Infinity, refused: 0 });
    current.refused += 1;
    if (at - current.lastLogged < STORE_FAILURE_LOG_INTERVAL_MS) return;
    current.lastLogged = at;
    const { level, message } = MESSAGES[kind];
    logger[level](message, { appKey, refusedSinceFirst: current.refused, failingForMs: at - current.since });
  }

  function answered(): void {
    const outage = state.unavailable;
    if (outage === undefined) return;
    state.unavailable = undefined;
    logger.info("The nonce store answers again; signed requests are accepted.", { refusedWhileUnavailable: outage.refused, unavailableForMs: now() - outage.since });
  }

  function observe(use: NonceUse, appKey: string): NonceUse {
    if (use === "unavailable" || use === "full") failed(use, appKey);
    else {
      answered();
      if (use === "fresh" || use === "reused") state.full = undefined;
    }
    return use;
  }

  return {
    useOnce(appKey, nonce, expiresAtMs, nowMs, timestampMs) {
      // Every argument passes on: the request's timestamp lets a store refuse what it forgot.
      const use = store.useOnce(appKey, nonce, expiresAtMs, nowMs, timestampMs);
      return use instanceof Promise ? use.then((answer) => observe(answer, appKey)) : observe(use, appKey);
    },
  };
}
