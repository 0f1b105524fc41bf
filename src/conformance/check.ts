// What a check is, and what it results in (its failures are thrown as errors.ts's CheckFailure).
import type { CheckContext } from "./context.js";
import type { CheckFailureDetail } from "./errors.js";

export type CheckNeed = "control" | "receiver" | "apiKey" | "foreignMerchant" | "signed" | "keyed";

export interface Check {
  /** Stable name, used by --include/--exclude and in reports. */
  name: string;
  tags: string[];
  /** One line: what the check proves. */
  purpose: string;
  /** The spec location or source rule the check enforces. */
  rule: string;
  needs?: CheckNeed[];
  run(ctx: CheckContext): Promise<void>;
}

export type CheckStatus = "passed" | "failed" | "skipped";

export interface CheckResult {
  name: string;
  tags: string[];
  purpose: string;
  status: CheckStatus;
  durationMs: number;
  /** Why it was skipped, or the failure. */
  reason?: string;
  failure?: CheckFailureDetail;
}
