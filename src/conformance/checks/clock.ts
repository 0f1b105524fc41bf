// clock.*: the server's clock agrees with true time within the signature window. Measured once
// before the checks (src/conformance/clock.ts); when it does not, this is the one failure and
// every check that signs requests is skipped instead of failing with 100004 one by one.
import type { CheckDefinition } from "../check.js";
import { CheckFailure } from "../errors.js";
import { SIGNATURE_WINDOW_SECONDS } from "../../contract/index.js";

export const CLOCK_CHECK = "clock.within-window";
const RULE = "source: Authentication, timestamp rule; DESIGN item 6 (±300 s of server time)";

export const clockChecks: CheckDefinition[] = [
  {
    name: CLOCK_CHECK,
    tags: ["clock", "signed"],
    purpose: `a request timed by this machine's clock is inside the server's ±${SIGNATURE_WINDOW_SECONDS} s window (its Date header and control API clock are read once)`,
    rule: RULE,
    // The window itself is the contract's: the source says "Timestamp validity window ... not shown".
    basis: [{ source: "Unix time in seconds (not milliseconds)" }, { decision: "Signature freshness" }],
    needs: ["signed"],
    async run(ctx) {
      const refusal = ctx.clock?.refusal;
      if (refusal) throw new CheckFailure({ message: refusal.message, expected: `a server clock within ±${SIGNATURE_WINDOW_SECONDS} s of this machine's (both on true time)`, rule: RULE, exchange: refusal.exchange });
    },
  },
];
