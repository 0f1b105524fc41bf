// The conformance checker: runs named checks against any server that claims to implement the
// contract, and reports where it breaks it.
export { ALL_CHECKS } from "./checks/index.js";
export type { Check, CheckResult, CheckStatus } from "./check.js";
export { MerchantOpenPlatformError } from "../errors.js";
export { ConnectionError, OptionsError, type CheckFailureDetail } from "./errors.js";
export type { ConformanceOptions } from "./options.js";
export { runConformance, selectChecks, type ConformanceReport, type RunHooks } from "./runner.js";
export { jsonReport, junitReport, resultLine, textReport } from "./report.js";
export type { Exchange } from "./http.js";
