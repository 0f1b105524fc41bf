// A stale-timestamp refusal (100004) while the sandbox clock runs ahead of real time: the
// client's clock is usually right and the sandbox's was moved (advanceClock), so the message
// says so and names both ways out, instead of only "check the client's clock".
import type { SignatureFailure } from "../signing/index.js";
import type { SandboxClock } from "./clock.js";

export function explainMovedClock(refusal: SignatureFailure, clock: SandboxClock): void {
  if (refusal.name !== "TIMESTAMP_OUT_OF_WINDOW" || clock.offsetMs === 0) return;
  const seconds = Math.floor(clock.offsetMs / 1000);
  refusal.message +=
    ` The sandbox clock is ${seconds} s ahead of real time (moved with POST /sandbox/clock/advance); ` +
    "sign with its time (GET /sandbox/clock answers it) or reset it (POST /sandbox/clock/reset, or the dashboard's Reset the clock).";
}
