// Which Host names a local server answers (DNS rebinding). A page of evil.example whose name
// resolves to 127.0.0.1 reaches a server on this machine with its own name in the Host header;
// answering only names the server serves leaves such a page nothing to read, GETs included.
// Served: loopback names (localhost, *.localhost, 127.0.0.1, ::1), names added (the listen
// address, a public base URL's host, configured extra names), and any IP literal, because a
// page whose origin is an IP address is not a rebinding page (its origin is that address).
import { isIP } from "node:net";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "::1"];

/** The host names (lower case, no port, no brackets) a server answers to. */
export class ServedHosts {
  private readonly names = new Set<string>(LOOPBACK_NAMES);

  add(host: string | undefined): void {
    const name = host && normaliseHost(host);
    if (name) this.names.add(name);
  }

  /** Adds the host of a URL (a public base URL); a value that is not a URL adds nothing. */
  addUrl(url: string | undefined): void {
    if (!url) return;
    try {
      this.add(new URL(url).hostname);
    } catch {
      // not a URL: nothing to add (the option is checked where it is given)
    }
  }

  /** True when a Host header value ("name", "name:port", "[v6]:port") names a served host. */
  serves(hostHeader: string): boolean {
    const name = normaliseHost(hostOnly(hostHeader));
    if (name === "") return false;
    return this.names.has(name) || name.endsWith(".localhost") || isIP(name) !== 0;
  }

  list(): string[] {
    return [...this.names];
  }
}

/** Lower case, brackets and a trailing dot removed: "[::1]" → "::1", "LOCALHOST." → "localhost". */
export function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

/** "example.com:4010" → "example.com", "[::1]:4010" → "[::1]". */
function hostOnly(header: string): string {
  const trimmed = header.trim();
  if (trimmed.startsWith("[")) return trimmed.slice(0, trimmed.indexOf("]") + 1);
  const colon = trimmed.indexOf(":");
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}
