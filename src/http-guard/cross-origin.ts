// Whether a browser says a request comes from a page of another origin. Browsers send Origin on
// cross-origin requests and Sec-Fetch-Site on all of them; a request with neither (curl, test
// code, SDKs) is not a browser's cross-site request. Only state-changing methods are judged:
// a cross-origin GET cannot read the answer (no CORS is granted), and the Host check already
// refuses a rebinding page's GETs.

/** The headers the judgement reads (Node's IncomingHttpHeaders fits). */
export interface SiteHeaders {
  host?: string | undefined;
  origin?: string | undefined;
  "sec-fetch-site"?: string | string[] | undefined;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** True for methods that may change state (everything but GET, HEAD and OPTIONS). */
export function isStateChanging(method: string | undefined): boolean {
  return !SAFE_METHODS.has((method ?? "GET").toUpperCase());
}

/** Why a browser's request comes from a page of another origin (for a message), or undefined. */
export function crossOriginReason(headers: SiteHeaders): string | undefined {
  const fetchSite = headers["sec-fetch-site"];
  if (fetchSite === "cross-site" || fetchSite === "same-site") return `Sec-Fetch-Site: ${fetchSite}`;
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  if (origin === "null") return "Origin: null";
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return `Origin: ${origin.slice(0, 100)}`;
  }
  return originHost === (headers.host ?? "").toLowerCase() ? undefined : `Origin: ${origin.slice(0, 100)}`;
}
