// The sandbox's notion of "now": an injectable base clock plus an offset that the control
// API moves forward. Signature windows, trade expiry, openNow, rate limits and callback
// timestamps all read this one clock, so advancing it moves them together.
import { SandboxConfigError } from "./errors.js";

/** A clock in epoch milliseconds. */
export interface Clock {
  now(): number;
}

export interface SandboxClock extends Clock {
  /** How far the sandbox runs ahead of the base clock, in ms. */
  readonly offsetMs: number;
  /** Moves the sandbox time forward (never back). */
  advance(ms: number): void;
  /** Back to the base clock (offset 0). */
  resetOffset(): void;
  /** Takes the offset the records keep (several instances share one through their database). */
  setOffset(ms: number): void;
}

export function createSandboxClock(base: Clock = { now: () => Date.now() }): SandboxClock {
  let offsetMs = 0;
  return {
    now: () => base.now() + offsetMs,
    get offsetMs() {
      return offsetMs;
    },
    advance(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new SandboxConfigError("ms", `the clock only moves forward, got ${ms} ms`);
      offsetMs += ms;
    },
    resetOffset() {
      offsetMs = 0;
    },
    setOffset(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new SandboxConfigError("ms", `the clock offset is never negative, got ${ms} ms`);
      offsetMs = ms;
    },
  };
}

/** The platform's time zone for timestamps it writes (China Standard Time, no DST). */
const PLATFORM_OFFSET_MS = 8 * 3600 * 1000;

/** ISO 8601 with the platform offset, whole seconds: 2026-11-22T10:15:30+08:00. */
export function formatPlatformTime(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000 + PLATFORM_OFFSET_MS).toISOString().slice(0, 19)}+08:00`;
}

/** ISO 8601 in UTC, whole seconds: 2026-11-22T02:15:30Z (the key-based interface's form). */
export function formatUtcTime(ms: number): string {
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}Z`;
}

/** yyyyMMddHHmmss in platform time, the prefix of trade and refund numbers. */
export function platformDigits(ms: number): string {
  return new Date(ms + PLATFORM_OFFSET_MS).toISOString().slice(0, 19).replace(/[^0-9]/g, "");
}
