// The conformance checker: runs named checks against any server that claims to implement the
// contract, and reports where it breaks it.
export { ALL_CHECKS } from "./checks/index.js";
export type { Check, CheckResult, CheckStatus, CheckFailureDetail } from "./check.js";
export { OptionsError, type ConformanceOptions } from "./options.js";
export { ConnectionError, runConformance, selectChecks, type ConformanceReport, type RunHooks } from "./runner.js";
export { jsonReport, junitReport, resultLine, textReport } from "./report.js";
export type { Exchange } from "./http.js";
