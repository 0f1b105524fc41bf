// Where callbacks may go. A notifyUrl is chosen by whoever holds an app's credentials, and the
// sandbox then makes requests to it from the developer's machine: to 169.254.169.254 (a cloud
// metadata service), a router at 192.168.1.1 or a service on localhost, unless allowed. So:
//   - at creation, a notifyUrl whose host is an address literal (or a *.localhost name) of a
//     refused kind is answered 100009;
//   - at each delivery, the host name is resolved and every address it resolves to is checked,
//     so a public name pointing at a private address is refused too.
// Loopback targets are allowed with allowInsecureNotify (the flag for local receivers) or
// allowPrivateNotify; every other non-public kind only with allowPrivateNotify.
import { lookup as dnsLookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { NextFunction, Request, Response } from "express";
import { signedError } from "./errors.js";
import { requestState } from "../server/index.js";

export interface NotifyPolicy {
  /** 127.0.0.0/8, ::1, localhost. */
  allowLoopback: boolean;
  /** Private, link-local, shared, unspecified, multicast and reserved ranges. */
  allowPrivate: boolean;
}

export type AddressKind = "public" | "loopback" | "private" | "link-local" | "unspecified" | "multicast" | "reserved";

const RANGES: [AddressKind, "ipv4" | "ipv6", string, number][] = [
  ["loopback", "ipv4", "127.0.0.0", 8],
  ["loopback", "ipv6", "::1", 128],
  ["unspecified", "ipv4", "0.0.0.0", 8],
  ["unspecified", "ipv6", "::", 128],
  ["private", "ipv4", "10.0.0.0", 8],
  ["private", "ipv4", "172.16.0.0", 12],
  ["private", "ipv4", "192.168.0.0", 16],
  ["private", "ipv4", "100.64.0.0", 10], // shared address space (carrier-grade NAT)
  ["private", "ipv6", "fc00::", 7], // unique local
  ["link-local", "ipv4", "169.254.0.0", 16], // includes 169.254.169.254, the metadata service
  ["link-local", "ipv6", "fe80::", 10],
  ["multicast", "ipv4", "224.0.0.0", 4],
  ["multicast", "ipv6", "ff00::", 8],
  ["reserved", "ipv4", "240.0.0.0", 4], // and 255.255.255.255
  ["reserved", "ipv4", "192.0.0.0", 24],
  ["reserved", "ipv4", "198.18.0.0", 15], // benchmarking
];

const LISTS = new Map<AddressKind, BlockList>();
for (const [kind, family, network, prefix] of RANGES) {
  let list = LISTS.get(kind);
  if (!list) LISTS.set(kind, (list = new BlockList()));
  list.addSubnet(network, prefix, family);
}

/** The kind of an IP address (IPv4-mapped IPv6 addresses as their IPv4 address). */
export function addressKind(address: string): AddressKind {
  const bare = address.replace(/^\[(.*)\]$/, "$1");
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare);
  const ip = mapped ? (mapped[1] as string) : bare;
  const family = isIP(ip) === 4 ? "ipv4" : "ipv6";
  for (const [kind, list] of LISTS) if (list.check(ip, family)) return kind;
  return "public";
}

function allowed(kind: AddressKind, policy: NotifyPolicy): boolean {
  if (kind === "public") return true;
  if (kind === "loopback") return policy.allowLoopback || policy.allowPrivate;
  return policy.allowPrivate;
}

function refusal(host: string, address: string, kind: AddressKind): string {
  const flag = kind === "loopback" ? "--allow-insecure-notify or --allow-private-notify" : "--allow-private-notify";
  return `notifyUrl host ${host}${address === host ? "" : ` resolves to ${address}, which`} is a ${kind} address; the sandbox sends callbacks there only when started with ${flag}`;
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  } catch {
    return undefined;
  }
}

/** Why a notifyUrl is refused from its text alone (an address literal or a localhost name), or undefined. */
export function notifyUrlProblem(url: string, policy: NotifyPolicy): string | undefined {
  const host = hostOf(url);
  if (host === undefined) return undefined; // the validator judges the URL's form
  if (host === "localhost" || host.endsWith(".localhost")) return allowed("loopback", policy) ? undefined : refusal(host, host, "loopback");
  if (isIP(host) === 0 && !/^::ffff:/i.test(host)) return undefined;
  const kind = addressKind(host);
  return allowed(kind, policy) ? undefined : refusal(host, host, kind);
}

export type Lookup = (host: string) => Promise<{ address: string }[]>;

const systemLookup: Lookup = (host) => dnsLookup(host, { all: true, verbatim: true });

/**
 * At delivery: why the target is refused, or undefined. A name is resolved and every address
 * must be allowed (one private address among public ones is enough to refuse). A name that does
 * not resolve is left to the delivery itself, which then fails as it would anyway.
 */
export async function deliveryTargetProblem(url: string, policy: NotifyPolicy, lookup: Lookup = systemLookup): Promise<string | undefined> {
  const literal = notifyUrlProblem(url, policy);
  if (literal !== undefined) return literal;
  const host = hostOf(url);
  if (host === undefined || isIP(host) !== 0 || host === "localhost" || host.endsWith(".localhost")) return undefined;
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host);
  } catch {
    return undefined;
  }
  for (const { address } of addresses) {
    const kind = addressKind(address);
    if (!allowed(kind, policy)) return refusal(host, address, kind);
  }
  return undefined;
}

/** Pipeline step after validation: 100009 for a notifyUrl literal of a refused kind. */
export function checkNotifyUrl(policy: NotifyPolicy) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const body = requestState(res).body as Record<string, unknown> | undefined;
    const notifyUrl = body && typeof body === "object" ? body.notifyUrl : undefined;
    const problem = typeof notifyUrl === "string" ? notifyUrlProblem(notifyUrl, policy) : undefined;
    next(problem === undefined ? undefined : signedError("VALIDATION_FAILED", `body.${problem}`));
  };
}
