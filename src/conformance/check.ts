// What a check is, and what it results in (its failures are thrown as errors.ts's CheckFailure).
import type { CheckContext } from "./context.js";
import type { CheckFailureDetail } from "./errors.js";
import type { CheckOrigin, RuleBasis } from "./origin.js";

export type { CheckOrigin, RuleBasis };

export type CheckNeed = "control" | "receiver" | "apiKey" | "foreignMerchant" | "signed" | "keyed";

/** A check as written: what it proves, the rule, what that rule rests on, and how to run it. */
export interface CheckDefinition {
  /** Stable name, used by --include/--exclude and in reports. */
  name: string;
  tags: string[];
  /** One line: what the check proves. */
  purpose: string;
  /** The spec location or source rule the check enforces. */
  rule: string;
  /** What the verdict rests on; its origin (source or designed) is read from these. */
  basis: RuleBasis[];
  needs?: CheckNeed[];
  run(ctx: CheckContext): Promise<void>;
}

export interface Check extends CheckDefinition {
  /** `source` when the rule is the source document's, `designed` when the contract chose it (origin.ts). */
  readonly origin: CheckOrigin;
}

export type CheckStatus = "passed" | "failed" | "skipped";

export interface CheckResult {
  name: string;
  tags: string[];
  origin: CheckOrigin;
  purpose: string;
  status: CheckStatus;
  durationMs: number;
  /** Why it was skipped, or the failure. */
  reason?: string;
  failure?: CheckFailureDetail;
}
