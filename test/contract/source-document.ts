// Reads the tables of the source document (docs/source/) so that tests take their oracle
// from the upstream text instead of restating it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { packageRoot } from "../../src/util/package-root.js";

export const sourceText = readFileSync(join(packageRoot(), "docs/source/merchant-open-platform-interface.md"), "utf8");

/** Rows of every Markdown table under a heading (up to the next heading of the same or higher level). */
export function tableRows(heading: string): string[][] {
  const lines = sourceText.split("\n");
  const start = lines.findIndex((line) => line.replace(/^#+\s*/, "") === heading && line.startsWith("#"));
  if (start < 0) throw new Error(`source document has no heading "${heading}"`);
  const level = lines[start]!.match(/^#+/)![0].length;
  const rows: string[][] = [];
  for (const line of lines.slice(start + 1)) {
    const match = line.match(/^(#+)\s/);
    if (match && match[1]!.length <= level) break;
    if (!line.startsWith("|") || /^\|[-| ]+\|$/.test(line)) continue;
    rows.push(line.split("|").slice(1, -1).map((cell) => cell.trim()));
  }
  // Drop header rows (repeated per table).
  return rows.filter((row) => !["Operation", "Limit", "Field", "Code", "Value"].includes(row[0]!));
}

export interface SourceParameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  defaultValue?: number;
  maximum?: number;
}

export interface SourceOperation {
  name: string;
  method: string;
  /** Path relative to the variant's base path, e.g. /orders/{orderId}. */
  path: string;
  variant: "signed" | "keyed";
  described: boolean;
  parameters: SourceParameter[];
}

/** Parses "path orderId (long, required); query merchantId (long, required; ...)" and "query pageNo (int, default 1), ...". */
export function parseRequestCell(cell: string): SourceParameter[] {
  const params: SourceParameter[] = [];
  for (const group of cell.split(/;\s*(?=(?:path|query)\s)/)) {
    const kind = group.match(/^(path|query)\s+(.*)$/);
    if (!kind) continue;
    // Split "a (x, y), b (z)" on commas outside parentheses.
    let depth = 0;
    let current = "";
    const parts: string[] = [];
    for (const char of kind[2]!) {
      if (char === "(") depth++;
      if (char === ")") depth--;
      if (char === "," && depth === 0) {
        parts.push(current);
        current = "";
      } else current += char;
    }
    parts.push(current);
    for (const part of parts) {
      const m = part.trim().match(/^([A-Za-z]+)\s*(?:\((.*)\))?/);
      if (!m) continue;
      const detail = m[2] ?? "";
      const defaultMatch = detail.match(/default (\d+)/);
      const maxMatch = detail.match(/max (\d+)/);
      params.push({
        name: m[1]!,
        in: kind[1] as "path" | "query",
        required: kind[1] === "path" || /\brequired\b/.test(detail),
        ...(defaultMatch && { defaultValue: Number(defaultMatch[1]) }),
        ...(maxMatch && { maximum: Number(maxMatch[1]) }),
      });
    }
  }
  return params;
}

function splitMethodPath(cell: string): { method: string; fullPath: string; query: string | undefined } {
  const [method, target] = cell.split(/\s+/) as [string, string];
  const [fullPath, query] = target.split("?");
  return { method: method.toLowerCase(), fullPath: fullPath!, query };
}

function relative(fullPath: string): { variant: "signed" | "keyed"; path: string } {
  if (fullPath.startsWith("/open-api/v1/")) return { variant: "signed", path: fullPath.slice("/open-api/v1".length) };
  if (fullPath.startsWith("/v1/")) return { variant: "keyed", path: fullPath.slice("/v1".length) };
  throw new Error(`unexpected path in source: ${fullPath}`);
}

export function sourceOperations(): SourceOperation[] {
  const described = tableRows("Endpoints")
    .filter((row) => /^(GET|POST|PUT|DELETE|PATCH) \//.test(row[1] ?? "") && row.length >= 4)
    .map((row) => {
      const { method, fullPath } = splitMethodPath(row[1]!);
      return { name: row[0]!, method, ...relative(fullPath), described: true, parameters: parseRequestCell(row[2]!) };
    });
  const named = tableRows("Operations that are named but not described").map((row) => {
    const { method, fullPath, query } = splitMethodPath(row[1]!);
    const pathParams = [...fullPath.matchAll(/\{(\w+)\}/g)].map((m) => ({ name: m[1]!, in: "path" as const, required: true }));
    const queryParams = (query ?? "")
      .split("&")
      .filter(Boolean)
      .map((pair) => ({ name: pair.split("=")[0]!, in: "query" as const, required: true }));
    return { name: row[0]!, method, ...relative(fullPath), described: false, parameters: [...pathParams, ...queryParams] };
  });
  return [...described, ...named];
}

/** The rows of the source's Limits table: [limit, value, applies to]. */
export function sourceLimits(): string[][] {
  return tableRows("Limits");
}
