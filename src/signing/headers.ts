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

const SIGNATURE_KEYS = ["x-app-key", "x-timestamp", "x-nonce", "x-sign"] as const;

/**
 * X-App-Key, X-Timestamp, X-Nonce and X-Sign, each as readHeader reads it, in one pass over the
 * headers (a server checks every request: four passes would walk every header four times).
 */
export function readSignatureHeaders(headers: unknown): [string | undefined, string | undefined, string | undefined, string | undefined] {
  if (typeof headers !== "object" || headers === null) return [undefined, undefined, undefined, undefined];
  if (typeof Headers !== "undefined" && headers instanceof Headers) {
    return [headers.get("x-app-key") ?? undefined, headers.get("x-timestamp") ?? undefined, headers.get("x-nonce") ?? undefined, headers.get("x-sign") ?? undefined];
  }
  const found: (string[] | undefined)[] = [undefined, undefined, undefined, undefined];
  for (const key in headers) {
    if (!Object.hasOwn(headers, key) || key.length < 6 || key.length > 11) continue;
    const at = (SIGNATURE_KEYS as readonly string[]).indexOf(key.toLowerCase());
    if (at < 0) continue;
    const value = (headers as Record<string, unknown>)[key];
    const values = (found[at] ??= []);
    if (typeof value === "string") values.push(value);
    else if (Array.isArray(value)) {
      for (const item of value as unknown[]) if (typeof item === "string") values.push(item);
    }
  }
  const joined = (values: string[] | undefined) => (values === undefined || values.length === 0 ? undefined : values.join(", "));
  return [joined(found[0]), joined(found[1]), joined(found[2]), joined(found[3])];
}
