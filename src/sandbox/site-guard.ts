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
import type { NextFunction, Request, Response } from "express";
import { crossOriginReason as siteCrossOriginReason, isStateChanging, ServedHosts } from "../http-guard/index.js";
import { sendRaw } from "../server/internal.js";
import { signedError } from "./errors.js";
import { SignedErrors } from "../../generated/error-codes.js";

// The judgements themselves live in src/http-guard, shared with mop proxy.
export { ServedHosts };

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

/** Why a browser's request comes from a page of another origin, or undefined. */
export function crossOriginReason(req: Request): string | undefined {
  return siteCrossOriginReason(req.headers);
}

export function crossOriginMessage(why: string): string {
  return `A state-changing request from a page of another origin is refused (${why}); the control API and the cashier take such requests only from their own pages or from non-browser clients.`;
}

/** Pipeline step: refuses (100017) state-changing requests a browser marks as coming from another origin. */
export function refuseCrossOrigin(req: Request, _res: Response, next: NextFunction): void {
  if (!isStateChanging(req.method)) return next();
  const why = crossOriginReason(req);
  next(why === undefined ? undefined : signedError("REQUEST_SITE_REFUSED", crossOriginMessage(why)));
}
