// Headers every answer carries (the cashier pages set their own stricter page policy):
// nosniff so no answer is ever run as something else than its Content-Type, and a policy that
// lets a JSON answer opened in a browser load nothing and be framed by no one. X-Frame-Options
// says "no framing" again for browsers that predate CSP's frame-ancestors (and for scanners).
import type { NextFunction, Request, Response } from "express";

export const JSON_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
} as const;

/**
 * For /docs: the rendered reference (Redoc) runs inline scripts and styles and may start a
 * worker, all from the sandbox itself; nothing is loaded from elsewhere and no page may frame it.
 */
export const DOCS_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Content-Security-Policy":
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
} as const;

export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set(JSON_SECURITY_HEADERS);
  next();
}
