// Reads signature headers from whatever the server framework hands over. HTTP header names are
// case-insensitive: Node lower-cases them (IncomingHttpHeaders), hand-built records often do
// not, and fetch's Headers has its own lookup.
import { SIGNATURE_HEADER_NAMES } from "./rules.js";

/** A header value as Node and most frameworks give it. */
export type HeaderValue = string | readonly string[] | undefined;

/** Request headers: a plain record (any key case) or a fetch Headers object. */
export type RequestHeaders = Readonly<Record<string, HeaderValue>> | Headers;

/**
 * The values of several headers in one pass over the headers, each as readHeader reads it: a
 * server checks the four signature headers on every request, and four passes would walk every
 * header four times.
 */
function readHeaders(headers: unknown, names: readonly string[]): (string | undefined)[] {
  if (typeof headers !== "object" || headers === null) return names.map(() => undefined);
  if (typeof Headers !== "undefined" && headers instanceof Headers) return names.map((name) => headers.get(name) ?? undefined);
  const wanted = names.map((name) => name.toLowerCase());
  const found: string[][] = names.map(() => []);
  for (const key in headers) {
    if (!Object.hasOwn(headers, key)) continue;
    const at = wanted.indexOf(key.toLowerCase());
    if (at < 0) continue;
    const value = (headers as Record<string, unknown>)[key];
    const values = found[at] as string[];
    if (typeof value === "string") values.push(value);
    else if (Array.isArray(value)) {
      for (const item of value as unknown[]) if (typeof item === "string") values.push(item);
    }
  }
  return found.map((values) => (values.length === 0 ? undefined : values.join(", ")));
}

/**
 * The value of one header, or undefined when absent. Repeated values (an array, or the same
 * name in several cases) are joined with ", " as Node does for unknown headers, so a request
 * carrying two X-Sign headers fails the format check instead of having one picked silently.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
  return readHeaders(headers, [name])[0];
}

/** X-App-Key, X-Timestamp, X-Nonce and X-Sign, each as readHeader reads it, in one pass. */
export function readSignatureHeaders(headers: unknown): (string | undefined)[] {
  return readHeaders(headers, SIGNATURE_HEADER_NAMES);
}
