// Sends the checker's requests and returns each as an exchange (request, answer, timing) that
// the checks judge and a failure quotes. Requests are built by hand (not with the client)
// because checks must also send what a correct client never would.
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
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
      exchange.response = bodyOnGet(request) ? await sendWithNodeHttp(request, this.options.timeoutMs) : await this.sendWithFetch(request);
      try {
        exchange.response.json = parseJsonLossless(exchange.response.bodyText);
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

  private async sendWithFetch(request: RecordedRequest): Promise<RecordedResponse> {
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
    return { status: response.status, headers, bodyText };
  }
}

/** fetch refuses a body on GET and HEAD; the checker sends one on purpose (signature.body-on-bodyless-operation). */
const bodyOnGet = (request: RecordedRequest) => request.body !== undefined && /^(GET|HEAD)$/i.test(request.method);

function sendWithNodeHttp(request: RecordedRequest, timeoutMs: number): Promise<RecordedResponse> {
  return new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const body = Buffer.from(request.body ?? "", "utf8");
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, { method: request.method, headers: { ...request.headers, "Content-Length": String(body.length) }, signal: AbortSignal.timeout(timeoutMs) }, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
        resolve({ status: res.statusCode ?? 0, headers, bodyText: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", (error: Error) => reject(error.name === "AbortError" ? Object.assign(new Error("timeout"), { name: "TimeoutError" }) : error));
    req.end(body);
  });
}

/** A copy of an exchange that is safe to print: no API key in full. Secrets are never sent in headers. */
export function redactExchange(exchange: Exchange): Exchange {
  const headers = { ...exchange.request.headers };
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() === "authorization") headers[name] = headers[name]!.replace(/^(Bearer\s+)(.*)$/i, (_m, p: string, key: string) => `${p}${key.length > 4 ? "…" + key.slice(-4) : "…"}`);
  }
  return { ...exchange, request: { ...exchange.request, headers } };
}
