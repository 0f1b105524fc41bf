// Reports of a conformance run: human text (summary table and failure details), JSON, JUnit XML.
// Secrets never appear: requests carry no secret, and API keys are shortened.
import type { CheckResult } from "./check.js";
import { redactExchange, type Exchange } from "./http.js";
import type { ConformanceReport } from "./runner.js";
import { describeSkew } from "./clock.js";

const MARK = { passed: "PASS", failed: "FAIL", skipped: "SKIP" } as const;

function showExchange(exchange: Exchange): string[] {
  const { request, response, error } = redactExchange(exchange);
  const lines = [`    request:  ${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers)) lines.push(`              ${name}: ${value}`);
  if (request.body !== undefined) lines.push(`              ${truncate(request.body, 400)}`);
  if (response) {
    lines.push(`    answer:   HTTP ${response.status} ${response.headers["content-type"] ?? ""}`.trimEnd());
    lines.push(`              ${truncate(response.bodyText, 600)}`);
  } else lines.push(`    answer:   none (${error})`);
  return lines;
}

function truncate(text: string, max: number): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ");
  return oneLine.length > max ? `${oneLine.slice(0, max)}… (${text.length} characters)` : oneLine;
}

export function resultLine(result: CheckResult): string {
  return `${MARK[result.status]} ${result.name} (${result.durationMs} ms)${result.status === "skipped" ? ` — ${result.reason}` : ""}`;
}

export function textReport(report: ConformanceReport): string {
  const width = Math.max(...report.results.map((r) => r.name.length), 5);
  const lines = [
    "",
    `${"check".padEnd(width)}  result  ms`,
    `${"-".repeat(width)}  ------  ----`,
    ...report.results.map((r) => `${r.name.padEnd(width)}  ${MARK[r.status].padEnd(6)}  ${r.durationMs}`),
    "",
  ];
  for (const result of report.results.filter((r) => r.status === "failed")) {
    const failure = result.failure!;
    lines.push(`FAIL ${result.name}: ${result.purpose}`, `    problem:  ${failure.message}`, `    expected: ${failure.expected}`, `    rule:     ${failure.rule}`);
    if (failure.exchange) lines.push(...showExchange(failure.exchange));
    lines.push("");
  }
  const skipped = report.results.filter((r) => r.status === "skipped");
  if (skipped.length) lines.push("Skipped (not run, not passed):", ...skippedLines(skipped), "");
  if (report.clock?.aimSeconds) lines.push(`Server clock: ${describeSkew(report.clock.aimSeconds * 1000)}; the timestamp-window probes were aimed at it.`, "");
  const { passed, failed } = report.counts;
  lines.push(`${passed} passed, ${failed} failed, ${skipped.length} skipped in ${(report.durationMs / 1000).toFixed(1)} s against ${report.target.baseUrl}${report.target.basePath}`);
  return lines.join("\n") + "\n";
}

/** One line per reason: many checks skipped for one cause (a clock off) read as one cause. */
function skippedLines(skipped: CheckResult[]): string[] {
  const byReason = new Map<string, string[]>();
  for (const result of skipped) byReason.set(result.reason ?? "", [...(byReason.get(result.reason ?? "") ?? []), result.name]);
  return [...byReason].map(([reason, names]) => (names.length === 1 ? `  ${names[0]}: ${reason}` : `  ${names.length} checks: ${reason}\n    ${names.join(", ")}`));
}

export function jsonReport(report: ConformanceReport): string {
  const results = report.results.map((r) => (r.failure?.exchange ? { ...r, failure: { ...r.failure, exchange: redactExchange(r.failure.exchange) } } : r));
  return JSON.stringify({ ...report, results }, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value), 2) + "\n";
}

const xml = (text: string) => text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

export function junitReport(report: ConformanceReport): string {
  const cases = report.results.map((r) => {
    const open = `  <testcase classname="mop.check.${xml(r.name.split(".")[0]!)}" name="${xml(r.name)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
    if (r.status === "skipped") return `${open}<skipped message="${xml(r.reason ?? "")}"/></testcase>`;
    if (r.status === "passed") return `${open}</testcase>`;
    const detail = [r.failure!.message, `expected: ${r.failure!.expected}`, `rule: ${r.failure!.rule}`, ...(r.failure!.exchange ? showExchange(r.failure!.exchange) : [])].join("\n");
    return `${open}<failure message="${xml(r.failure!.message)}">${xml(detail)}</failure></testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="mop check" tests="${report.results.length}" failures="${report.counts.failed}" skipped="${report.counts.skipped}" time="${(report.durationMs / 1000).toFixed(3)}" timestamp="${report.startedAt}">`,
    ...cases,
    "</testsuite>",
    "",
  ].join("\n");
}
