// The server's clock against this machine's, measured once before the checks: a server whose
// clock is off by more than the signature window refuses every signed request with 100004,
// and that is one diagnosis, not one failure per check. Within the window, the timestamp
// probes are aimed at the server's clock so that a small skew is not misread as a wrong window.
import { SignedErrors } from "../../generated/error-codes.js";
import { SIGNATURE_WINDOW_SECONDS } from "../contract/index.js";
import type { ControlApi } from "./control.js";
import type { Exchange } from "./http.js";

/** The signature window of the contract (DESIGN item 6), in seconds. */
/** Below this, a measured skew is noise (the Date header has whole seconds). */
const NEGLIGIBLE_SKEW_MS = 2000;
/** Probes aimed at the server's clock stay this far clear of the measured skew's inaccuracy. */
const AIMING_MARGIN_SECONDS = 10;

export interface ClockReading {
  /** Server clock minus this machine's, in ms. */
  skewMs: number;
  source: "Date header" | "control API clock";
}

export interface ClockDiagnosis {
  readings: ClockReading[];
  /** The most trustworthy reading: the control API clock when there is one, else the Date header. */
  skewMs: number | undefined;
  /** Set when a correctly timed, correctly signed request was refused with 100004. */
  refusal?: { message: string; exchange: Exchange };
  /** Seconds to add to this machine's clock to aim a timestamp probe at the server's clock. */
  aimSeconds: number;
}

/** Server time from an answer's Date header (whole seconds, so the middle of that second). */
export function readingFromDate(exchange: Exchange): ClockReading | undefined {
  const date = exchange.response?.headers.date;
  const sent = exchange.startedAt;
  if (!date || sent === undefined) return undefined;
  const serverMs = Date.parse(date);
  if (Number.isNaN(serverMs)) return undefined;
  return { skewMs: Math.round(serverMs + 500 - (sent + exchange.durationMs / 2)), source: "Date header" };
}

export async function readingFromControl(control: ControlApi): Promise<ClockReading | undefined> {
  const sent = Date.now();
  try {
    const clock = (await control.call("getClock")) as { epochMs: number | bigint };
    const arrived = Date.now();
    return { skewMs: Math.round(Number(clock.epochMs) - (sent + arrived) / 2), source: "control API clock" };
  } catch {
    return undefined;
  }
}

export function describeSkew(skewMs: number): string {
  const seconds = Math.round(Math.abs(skewMs) / 1000);
  return `${seconds} s ${skewMs >= 0 ? "ahead of" : "behind"} this machine's`;
}

/**
 * Combines the readings with the answer to one correctly signed request (`probe`): only a
 * refusal with 100004 makes a diagnosis, so a server that ignores the Date header's meaning is
 * never blamed for it.
 */
export function diagnoseClock(readings: ClockReading[], probe: Exchange | undefined): ClockDiagnosis {
  const best = readings.find((r) => r.source === "control API clock") ?? readings[0];
  const skewMs = best?.skewMs;
  const code = (probe?.response?.json as { code?: unknown } | undefined)?.code;
  const refused = probe !== undefined && (code === SignedErrors.TIMESTAMP_OUT_OF_WINDOW.code || code === BigInt(SignedErrors.TIMESTAMP_OUT_OF_WINDOW.code));
  const diagnosis: ClockDiagnosis = { readings, skewMs, aimSeconds: 0 };
  if (refused) {
    const measured = readings.map((r) => `${r.source}: ${describeSkew(r.skewMs)}`).join("; ");
    diagnosis.refusal = {
      exchange: probe,
      message:
        `the server refuses a correctly signed request timed by this machine's clock with 100004 (timestamp outside the ±${SIGNATURE_WINDOW_SECONDS} s window): ` +
        (measured ? `its clock is off (${measured}). ` : "its clock or this machine's is off (no Date header or control API clock to measure by). ") +
        "Fix the clock (NTP) of the server or of this machine; every check that signs requests was skipped.",
    };
  } else if (skewMs !== undefined && Math.abs(skewMs) >= NEGLIGIBLE_SKEW_MS && Math.abs(skewMs) <= (SIGNATURE_WINDOW_SECONDS - AIMING_MARGIN_SECONDS) * 1000) {
    diagnosis.aimSeconds = Math.round(skewMs / 1000);
  }
  return diagnosis;
}

/** Timestamp-window probes: just outside the window of the server's clock, clear of the skew's inaccuracy. */
export function windowProbeOffsets(diagnosis: ClockDiagnosis | undefined): { staleSeconds: number; futureSeconds: number } {
  const aim = diagnosis?.aimSeconds ?? 0;
  // Unaimed: 301 s back (the request only ages in transit) and 310 s ahead (a second tick cannot
  // bring it into the window). Aimed at a measured skew: a few more seconds for its inaccuracy.
  return aim === 0 ? { staleSeconds: -301, futureSeconds: 310 } : { staleSeconds: aim - SIGNATURE_WINDOW_SECONDS - 5, futureSeconds: aim + SIGNATURE_WINDOW_SECONDS + AIMING_MARGIN_SECONDS };
}
