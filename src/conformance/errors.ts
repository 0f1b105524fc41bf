// What the checker throws. OptionsError and ConnectionError reach the caller of runConformance
// (mop check exits 2 on either); CheckFailure and CheckSkipped end one check and become its
// result in the report.
import { MerchantOpenPlatformError } from "../errors.js";
import type { Exchange } from "./http.js";

/** The options given to runConformance cannot be used (a missing base URL, an unknown check, ...). */
export class OptionsError extends MerchantOpenPlatformError {
  override readonly name = "OptionsError";
}

/** The server could not be reached at all: a usage or connection problem, not a contract break. */
export class ConnectionError extends MerchantOpenPlatformError {
  override readonly name = "ConnectionError";
}

export interface CheckFailureDetail {
  message: string;
  expected: string;
  rule: string;
  exchange?: Exchange;
}

/** Thrown by a check to fail with the request sent, the answer received and what was expected. */
export class CheckFailure extends MerchantOpenPlatformError {
  override readonly name = "CheckFailure";

  constructor(readonly detail: CheckFailureDetail) {
    super(detail.message);
  }
}

/** Thrown when a check cannot run against this server (reported as skipped, never as passed). */
export class CheckSkipped extends MerchantOpenPlatformError {
  override readonly name = "CheckSkipped";
}
