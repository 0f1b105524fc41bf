// The request target exactly as the client sent it. The proxy never runs it through `new URL()`:
// "..", "//" and percent-encoding reach the server byte for byte, and the route is matched on
// the same raw text, so the proxy judges what the server will see.

export interface RequestTarget {
  /** Path and query as forwarded, e.g. "/open-api/v1/stores?merchantId=1". */
  forwarded: string;
  /** The path part, undecoded. */
  path: string;
  /** The query part without "?", undecoded ("" when none). */
  query: string;
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** Splits a request-target; undefined for forms a reverse proxy cannot forward ("*", "host:port"). */
export function parseRequestTarget(raw: string): RequestTarget | undefined {
  // absolute-form (GET http://host/path) is what a client configured for an HTTP proxy sends.
  const originForm = ABSOLUTE_FORM.test(raw) ? raw.replace(ABSOLUTE_FORM, "") || "/" : raw;
  if (!originForm.startsWith("/")) return undefined;
  // A "#" has no place in a request-target; it is forwarded as sent but not read as path or query.
  const withoutFragment = originForm.split("#", 1)[0]!;
  const mark = withoutFragment.indexOf("?");
  return {
    forwarded: originForm,
    path: mark < 0 ? withoutFragment : withoutFragment.slice(0, mark),
    query: mark < 0 ? "" : withoutFragment.slice(mark + 1),
  };
}

import type { Dialect } from "../contract/index.js";

export type Variant = Dialect;

const BASES: readonly { prefix: string; variant: Variant }[] = [
  { prefix: "/open-api/v1", variant: "signed" },
  { prefix: "/open-api", variant: "signed" },
  { prefix: "/v1", variant: "keyed" },
];

/** The interface a path belongs to and the path inside it, or undefined outside both. */
export function interfaceOf(path: string): { variant: Variant; relative: string } | undefined {
  const base = BASES.find((b) => path === b.prefix || path.startsWith(`${b.prefix}/`));
  return base && { variant: base.variant, relative: path.slice(base.prefix.length) || "/" };
}
