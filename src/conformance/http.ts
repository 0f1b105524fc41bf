// Sends the checker's requests and returns each as an exchange (request, answer, timing) that
// the checks judge and a failure quotes. Requests are built by hand (not with the client)
// because checks must also send what a correct client never would.
import { parseJsonLossless } from "../json/index.js";
import type { RequestPacer } from "./pacer.js";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  bodyText: string;
  /** The body parsed losslessly, when it is JSON. */
  json?: unknown;
}

export interface Exchange {
  request: RecordedRequest;
  response?: RecordedResponse;
  /** Why no response arrived (connection refused, timeout). */
  error?: string;
  durationMs: number;
  /** When the request was sent (epoch ms), to read the server's Date header against. */
  startedAt?: number;
}

export interface HttpOptions {
  timeoutMs: number;
  pacer: RequestPacer;
  fetch?: typeof fetch;
}

export class ConformanceHttp {
  constructor(private readonly options: HttpOptions) {}

  async send(request: RecordedRequest): Promise<Exchange> {
    await this.options.pacer.acquire();
    const started = performance.now();
    const exchange: Exchange = { request, durationMs: 0, startedAt: Date.now() };
    try {
      const response = await (this.options.fetch ?? fetch)(request.url, {
        method: request.method,
        headers: request.headers,
        ...(request.body !== undefined && { body: request.body }),
        redirect: "manual",
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const bodyText = await response.text();
      const headers: Record<string, string> = {};
      response.headers.forEach((value, key) => (headers[key] = value));
      exchange.response = { status: response.status, headers, bodyText };
      try {
        exchange.response.json = parseJsonLossless(bodyText);
      } catch {
        // Not JSON: the checks report it; the exchange keeps the text.
      }
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      exchange.error = (error as Error).name === "TimeoutError" ? `no answer within ${this.options.timeoutMs} ms` : `${(error as Error).message}${cause?.code ? ` (${cause.code})` : ""}`;
    }
    exchange.durationMs = Math.round(performance.now() - started);
    return exchange;
  }
}

/** A copy of an exchange that is safe to print: no API key in full. Secrets are never sent in headers. */
export function redactExchange(exchange: Exchange): Exchange {
  const headers = { ...exchange.request.headers };
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === "authorization") headers[name] = headers[name]!.replace(/^(Bearer\s+)(.*)$/i, (_m, p: string, key: string) => `${p}${key.length > 4 ? "…" + key.slice(-4) : "…"}`);
  }
  return { ...exchange, request: { ...exchange.request, headers } };
}
