// The HTTP server's own limits: how long a client may take to send headers and a whole request,
// how long an idle keep-alive connection stays open, and how many connections are served at
// once. Node's defaults (60 s for headers, 300 s per request, no connection cap) let a few
// thousand slow clients hold the sandbox's memory; these are sized for a local tool talking to
// test code and are listed in docs/sandbox.md ("Limits").
import type { Server, ServerOptions } from "node:http";
import { SandboxConfigError } from "./errors.js";

export interface ServerLimits {
  /** Time to receive a request's headers, from the connection or the previous request. Default 10,000 ms. */
  headersTimeoutMs: number;
  /** Time to receive a whole request (headers and body). Default 30,000 ms. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. Default 5,000 ms. */
  keepAliveTimeoutMs: number;
  /** Connections served at once; further ones are closed on arrival. Default 256. */
  maxConnections: number;
}

export const DEFAULT_SERVER_LIMITS: Readonly<ServerLimits> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 256,
});

/** The defaults with the given overrides, checked (a SandboxConfigError names a bad one). */
export function resolveServerLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...overrides };
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new SandboxConfigError(`server.${name}`, `server limit ${name} must be a whole number of at least 1, got ${String(value)}`);
  }
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new SandboxConfigError("server.headersTimeoutMs", `server limit headersTimeoutMs (${limits.headersTimeoutMs}) must not exceed requestTimeoutMs (${limits.requestTimeoutMs})`);
  }
  return limits;
}

/** Options for http.createServer. */
export function serverOptions(limits: ServerLimits): ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    // Node checks the two timeouts above on this interval (30 s by default), so a timeout is
    // enforced up to one interval late; a quarter of the shorter one keeps that lateness small.
    connectionsCheckingInterval: Math.max(5, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
  };
}

/** What createServer's options do not set. */
export function applyServerLimits(server: Server, limits: ServerLimits): void {
  server.maxConnections = limits.maxConnections;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
}
