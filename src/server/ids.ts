// Id helpers the kit exported before its request step gave handlers exact ids (every int64
// field as bigint). Kept, deprecated, so that servers written against them still compile; new
// code needs none of them (docs/server.md, "Handlers and their types").
import { parseJsonLossless, toId as idOf } from "../json/index.js";

/** @deprecated Handlers receive int64 ids as bigint already. An id given as a number or a bigint, as bigint. */
export function toId(value: unknown): bigint {
  return idOf(value);
}

/** @deprecated Handlers receive int64 ids as bigint already. An optional id (number or bigint) as bigint. */
export function toOptionalId(value: unknown): bigint | undefined {
  return value === undefined || value === null ? undefined : idOf(value);
}

/** @deprecated Use parseJsonLossless (merchant-open-platform). Parses JSON text; integers beyond 2^53 become bigint. */
export function parseExactJson(text: string): unknown {
  return parseJsonLossless(text);
}
