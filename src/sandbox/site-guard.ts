// What a web page must not be able to do to a sandbox running on a developer's machine. The
// control API has no authentication by design, so:
//   - Host: only names the sandbox serves are answered (loopback names, the listen address, the
//     public base URL's host, configured extra names, any IP literal). A DNS-rebinding page
//     (evil.example resolving to 127.0.0.1) sends its own name and is refused, so it can read
//     nothing, not even GET answers.
//   - Origin: a state-changing control or cashier request from a browser page of another origin
//     (Origin or Sec-Fetch-Site says so) is refused. Requests without those headers (curl, test
//     code, SDKs) are not browsers' cross-site requests and pass.
//   - Control POSTs must be application/json (see routes/control.ts): a page can only send
//     that cross-origin after a CORS preflight, which the sandbox never grants.
import { isIP } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { sendRaw } from "../server/index.js";
import { signedError } from "./errors.js";
import { SignedErrors } from "../../generated/error-codes.js";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];

/** The host names (lower case, no port, no brackets) a sandbox answers to. */
export class ServedHosts {
  private readonly names = new Set<string>(LOOPBACK_NAMES);

  add(host: string | undefined): void {
    const name = host && normaliseHost(host);
    if (name) this.names.add(name);
  }

  /** Adds the host of a URL (the public base URL). */
  addUrl(url: string | undefined): void {
    if (!url) return;
    try {
      this.add(new URL(url).hostname);
    } catch {
      // not a URL: nothing to add (the option is checked where it is given)
    }
  }

  serves(hostHeader: string): boolean {
    const name = normaliseHost(hostOnly(hostHeader));
    if (name === "") return false;
    // An IP literal cannot be a rebinding attack: the page's origin would be that address.
    return this.names.has(name) || name.endsWith(".localhost") || isIP(name) !== 0;
  }

  list(): string[] {
    return [...this.names];
  }
}

function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** "example.com:4010" → "example.com", "[::1]:4010" → "[::1]". */
function hostOnly(header: string): string {
  const trimmed = header.trim();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  const colon = trimmed.indexOf(":");
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}

function refuse(res: Response, message: string): void {
  const entry = SignedErrors.REQUEST_SITE_REFUSED;
  sendRaw(res, entry.http, { code: entry.code, msg: message, data: null });
}

/** Refuses requests whose Host names a site the sandbox does not serve. */
export function checkHost(hosts: ServedHosts) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const host = req.headers.host;
    if (host === undefined || hosts.serves(host)) return next();
    refuse(
      res,
      `The Host header ${JSON.stringify(host.slice(0, 100))} is not a name this sandbox serves (${hosts.list().join(", ")}, or an IP address); ` +
        "a page reaching it through another name is refused. Add the name with --public-base-url or the allowedHosts option.",
    );
  };
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Why a browser's request comes from a page of another origin, or undefined. */
export function crossOriginReason(req: Request): string | undefined {
  const fetchSite = req.headers["sec-fetch-site"];
  if (fetchSite === "cross-site" || fetchSite === "same-site") return `Sec-Fetch-Site: ${fetchSite}`;
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  if (origin === "null") return "Origin: null";
  let originHost: string;
  try {
    originHost = new URL(origin).host.toLowerCase();
  } catch {
    return `Origin: ${origin.slice(0, 100)}`;
  }
  return originHost === (req.headers.host ?? "").toLowerCase() ? undefined : `Origin: ${origin.slice(0, 100)}`;
}

export function crossOriginMessage(why: string): string {
  return `A state-changing request from a page of another origin is refused (${why}); the control API and the cashier take such requests only from their own pages or from non-browser clients.`;
}

/** Pipeline step: refuses (100017) state-changing requests a browser marks as coming from another origin. */
export function refuseCrossOrigin(req: Request, _res: Response, next: NextFunction): void {
  if (SAFE_METHODS.has(req.method)) return next();
  const why = crossOriginReason(req);
  next(why === undefined ? undefined : signedError("REQUEST_SITE_REFUSED", crossOriginMessage(why)));
}
