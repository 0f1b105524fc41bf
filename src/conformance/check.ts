// What a check is, and how it reports a failure.
import type { Exchange } from "./http.js";
import type { CheckContext } from "./context.js";

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

export interface CheckFailureDetail {
  message: string;
  expected: string;
  rule: string;
  exchange?: Exchange;
}

/** Thrown by a check to fail with the request sent, the answer received and what was expected. */
export class CheckFailure extends Error {
  constructor(readonly detail: CheckFailureDetail) {
    super(detail.message);
    this.name = "CheckFailure";
  }
}

/** Thrown when a check cannot run against this server (reported as skipped, never as passed). */
export class CheckSkipped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "CheckSkipped";
  }
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
