// What a web page must not do through mop proxy (the same rules as the sandbox's, from
// src/http-guard). The proxy rewrites Host to the target's before forwarding, so without its own
// check a DNS-rebinding page (rebind.test resolving to 127.0.0.1) would pass the target's Host
// check too; with --sign it would even get the app's signature. So:
//   - Host: only loopback names, the listen address, --allowed-host names and IP literals;
//   - a state-changing request a browser marks as coming from another origin is refused.
// Both are judged before a byte of the body is read or anything is signed or forwarded.
import type { IncomingMessage } from "node:http";
import { crossOriginReason, isStateChanging, ServedHosts } from "../http-guard/index.js";
import { ProxyConfigError } from "./errors.js";

/** The names the proxy answers: loopback names, the listen address and the allowed hosts. */
export function proxyServedHosts(listenHost: string, allowedHosts: readonly string[] = []): ServedHosts {
  const hosts = new ServedHosts();
  hosts.add(listenHost);
  for (const name of allowedHosts) {
    if (typeof name !== "string" || !/^(\[[0-9a-fA-F:.]+\]|[^\s/:?#@[\]]+)$/.test(name.trim())) {
      throw new ProxyConfigError("allowedHosts", `allowedHosts takes host names without scheme, port or path (e.g. "proxy.internal"), got ${JSON.stringify(String(name).slice(0, 80))}`);
    }
    hosts.add(name);
  }
  return hosts;
}

/** Why the proxy refuses the request (Host or cross-site), or undefined when it is served. */
export function siteRefusal(req: IncomingMessage, hosts: ServedHosts): string | undefined {
  const host = req.headers.host;
  if (host !== undefined && !hosts.serves(host)) {
    return (
      `The Host header ${JSON.stringify(host.slice(0, 100))} is not a name mop proxy serves (${hosts.list().join(", ")}, or an IP address); ` +
      "a page reaching it through another name is refused. Add the name with --allowed-host."
    );
  }
  if (!isStateChanging(req.method)) return undefined;
  const why = crossOriginReason(req.headers);
  return why === undefined
    ? undefined
    : `A state-changing request from a page of another origin is refused (${why}); mop proxy takes such requests only from non-browser clients and pages of its own origin.`;
}
