// Reads signature headers from whatever the server framework hands over. HTTP header names are
// case-insensitive: Node lower-cases them (IncomingHttpHeaders), hand-built records often do
// not, and fetch's Headers has its own lookup.

/** A header value as Node and most frameworks give it. */
export type HeaderValue = string | readonly string[] | undefined;

/** Request headers: a plain record (any key case) or a fetch Headers object. */
export type RequestHeaders = Readonly<Record<string, HeaderValue>> | Headers;

/**
 * The value of one header, or undefined when absent. Repeated values (an array, or the same
 * name in several cases) are joined with ", " as Node does for unknown headers, so a request
 * carrying two X-Sign headers fails the format check instead of having one picked silently.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name) ?? undefined;

  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(headers as Record<string, unknown>)) {
    if (key.toLowerCase() !== wanted) continue;
    if (typeof value === "string") values.push(value);
    else if (Array.isArray(value)) {
      for (const item of value as unknown[]) if (typeof item === "string") values.push(item);
    }
  }
  return values.length === 0 ? undefined : values.join(", ");
}
