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
  /** The request that broke the rule, and its answer. */
  exchange?: Exchange;
  /** Earlier exchanges the failure refers to, e.g. the call that made the id a probe was built from. */
  related?: Array<{ label: string; exchange: Exchange }>;
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
  override readonly name: string = "CheckSkipped";
}

/**
 * The server answered an operation of the spec with 100015 / 100016 (key-based: 404 / 405): it
 * does not implement it (a partial implementation, as the kit's `partial: true` answers). Every
 * check that needs the operation is skipped with this reason, so a team can adopt the checker
 * operation by operation.
 */
export class NotImplemented extends CheckSkipped {
  override readonly name = "NotImplemented";

  constructor(operationId: string, code: number, serverMessage: string) {
    super(`not implemented: the server answers ${operationId} with ${code}${serverMessage ? ` (${serverMessage})` : ""}`, { operationId });
  }
}
