// Order types and statuses as words, read from the signed spec (x-enum-descriptions of
// OrderType and OrderStatus; the trade statuses' meanings from TradeStatus's description), so
// the dashboard never keeps a list of its own.
import { schemasFor } from "../../contract/index.js";

interface EnumSchema {
  enum?: unknown[];
  "x-enum-descriptions"?: unknown[];
  description?: string;
}

let cached: { orderType: Map<number, string>; orderStatus: Map<number, string>; tradeStatus: Map<string, string> } | undefined;

function schema(name: string): EnumSchema {
  return ((schemasFor("signed").spec as { components?: { schemas?: Record<string, EnumSchema> } }).components?.schemas?.[name] ?? {}) as EnumSchema;
}

function described(name: string): Map<number, string> {
  const { enum: values = [], "x-enum-descriptions": words = [] } = schema(name);
  return new Map(values.map((value, i) => [Number(value), String(words[i] ?? value)]));
}

/** "WAIT_BUYER_PAY (waiting for the user to pay), SUCCESS (paid), …" in the description. */
function fromDescription(name: string): Map<string, string> {
  const { enum: values = [], description = "" } = schema(name);
  const meanings = new Map<string, string>();
  for (const value of values) {
    const match = new RegExp(`\\b${String(value)} \\(([^)]+)\\)`).exec(description);
    if (match) meanings.set(String(value), match[1]!.replace(/\s+/g, " "));
  }
  return meanings;
}

function words() {
  cached ??= { orderType: described("OrderType"), orderStatus: described("OrderStatus"), tradeStatus: fromDescription("TradeStatus") };
  return cached;
}

export const orderTypeWord = (value: number): string => words().orderType.get(value) ?? String(value);
export const orderStatusWord = (value: number): string => words().orderStatus.get(value) ?? String(value);
/** The meaning of a trade status ("waiting for the user to pay"), or null when the spec gives none. */
export const tradeStatusMeaning = (value: string): string | null => words().tradeStatus.get(value) ?? null;
