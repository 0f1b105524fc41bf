// Reports of a conformance run: human text (summary table and failure details), JSON, JUnit XML.
// Every check shows its origin (source: the source document demands it; designed: the contract
// chose it where the source is silent). Secrets never appear: requests carry no secret, and API
// keys are shortened.
import type { CheckOrigin, CheckResult } from "./check.js";
import { redactExchange, type Exchange } from "./http.js";
import type { ConformanceReport } from "./runner.js";
import { describeSkew } from "./clock.js";

const MARK = { passed: "PASS", failed: "FAIL", skipped: "SKIP" } as const;

const ORIGINS: Record<CheckOrigin, string> = {
  source: "what the source document demands",
  designed: "what the contract adds where the source is silent",
};

function showExchange(exchange: Exchange, label = "request"): string[] {
  const { request, response, error } = redactExchange(exchange);
  const lines = [`    ${`${label}:`.padEnd(9)} ${request.method} ${request.url}`];
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
  return `${MARK[result.status]} ${result.name} [${result.origin}] (${result.durationMs} ms)${result.status === "skipped" ? ` — ${result.reason}` : ""}`;
}

/** The failure's own request first, then the earlier exchanges it refers to. */
function failureExchanges(failure: NonNullable<CheckResult["failure"]>): string[] {
  return [...(failure.exchange ? showExchange(failure.exchange) : []), ...(failure.related ?? []).flatMap(({ label, exchange }) => [`    (${label})`, ...showExchange(exchange)])];
}

function originCounts(report: ConformanceReport): string[] {
  const byOrigin = report.countsByOrigin;
  if (!byOrigin) return [];
  return (Object.keys(ORIGINS) as CheckOrigin[]).map((origin) => {
    const { passed, failed, skipped } = byOrigin[origin];
    return `${`${origin}:`.padEnd(9)} ${passed} passed, ${failed} failed, ${skipped} skipped (${ORIGINS[origin]})`;
  });
}

export function textReport(report: ConformanceReport): string {
  const width = Math.max(...report.results.map((r) => r.name.length), 5);
  const lines = [
    "",
    `${"check".padEnd(width)}  origin    result  ms`,
    `${"-".repeat(width)}  --------  ------  ----`,
    ...report.results.map((r) => `${r.name.padEnd(width)}  ${r.origin.padEnd(8)}  ${MARK[r.status].padEnd(6)}  ${r.durationMs}`),
    "",
  ];
  for (const result of report.results.filter((r) => r.status === "failed")) {
    const failure = result.failure!;
    lines.push(`FAIL ${result.name} [${result.origin}]: ${result.purpose}`, `    problem:  ${failure.message}`, `    expected: ${failure.expected}`, `    rule:     ${failure.rule}`);
    lines.push(...failureExchanges(failure));
    lines.push("");
  }
  const skipped = report.results.filter((r) => r.status === "skipped");
  if (skipped.length) lines.push("Skipped (not run, not passed):", ...skippedLines(skipped), "");
  if (report.clock?.aimSeconds) lines.push(`Server clock: ${describeSkew(report.clock.aimSeconds * 1000)}; the timestamp-window probes were aimed at it.`, "");
  const { passed, failed } = report.counts;
  lines.push(...originCounts(report));
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
  const results = report.results.map((r) =>
    r.failure
      ? {
          ...r,
          failure: {
            ...r.failure,
            ...(r.failure.exchange && { exchange: redactExchange(r.failure.exchange) }),
            ...(r.failure.related && { related: r.failure.related.map((entry) => ({ ...entry, exchange: redactExchange(entry.exchange) })) }),
          },
        }
      : r,
  );
  return JSON.stringify({ ...report, results }, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value), 2) + "\n";
}

const xml = (text: string) => text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

/** One suite per origin (`mop check: source`, `mop check: designed`); a case's classname names its origin and group. */
export function junitReport(report: ConformanceReport): string {
  const testcase = (r: CheckResult) => {
    const open = `    <testcase classname="mop.check.${r.origin}.${xml(r.name.split(".")[0]!)}" name="${xml(r.name)}" time="${(r.durationMs / 1000).toFixed(3)}">`;
    if (r.status === "skipped") return `${open}<skipped message="${xml(r.reason ?? "")}"/></testcase>`;
    if (r.status === "passed") return `${open}</testcase>`;
    const detail = [r.failure!.message, `expected: ${r.failure!.expected}`, `rule: ${r.failure!.rule}`, `origin: ${r.origin}`, ...failureExchanges(r.failure!)].join("\n");
    return `${open}<failure message="${xml(r.failure!.message)}">${xml(detail)}</failure></testcase>`;
  };
  const suites = (Object.keys(ORIGINS) as CheckOrigin[]).flatMap((origin) => {
    const results = report.results.filter((r) => r.origin === origin);
    if (results.length === 0) return [];
    const count = (status: CheckResult["status"]) => results.filter((r) => r.status === status).length;
    const seconds = results.reduce((sum, r) => sum + r.durationMs, 0) / 1000;
    return [
      `  <testsuite name="mop check: ${origin}" tests="${results.length}" failures="${count("failed")}" skipped="${count("skipped")}" time="${seconds.toFixed(3)}" timestamp="${report.startedAt}">`,
      `    <properties><property name="origin" value="${origin}"/><property name="meaning" value="${xml(ORIGINS[origin])}"/></properties>`,
      ...results.map(testcase),
      "  </testsuite>",
    ];
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mop check" tests="${report.results.length}" failures="${report.counts.failed}" skipped="${report.counts.skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}
