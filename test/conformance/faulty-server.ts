// A server that is wrong in exactly one way: a proxy in front of a conforming sandbox that
// rewrites requests (re-signing them, so the sandbox accepts what it should not) or answers.
// The checker is pointed at it and must fail the right checks and pass all others.
import { createServer, request as httpRequest, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { signRequestHeaders } from "../../src/signing/index.js";

export interface ForwardedRequest {
  method: string;
  /** Path and query, e.g. /open-api/v1/stores?pageSize=101 */
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface ForwardedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface FaultTools {
  /** Re-signs a request for the sandbox with the app's real credentials and a fresh nonce. */
  resign(request: ForwardedRequest): ForwardedRequest;
  /** This server's own address (for callbacks routed through it). */
  url: string;
}

export interface Fault {
  name: string;
  /** Checks that must fail, and only these. */
  breaks: string[];
  /** Checks the fault may also fail, depending on which ids a run happens to see (a true finding either way). */
  mayBreak?: string[];
  /** Checks that must be skipped (none by default), with the reason they must give. */
  skips?: { names: (name: string) => boolean; reason: RegExp };
  /** Answers a request itself instead of forwarding it (undefined forwards it). */
  answer?(request: ForwardedRequest, tools: FaultTools): ForwardedResponse | undefined | Promise<ForwardedResponse | undefined>;
  request?(request: ForwardedRequest, tools: FaultTools): ForwardedRequest | Promise<ForwardedRequest>;
  response?(response: ForwardedResponse, request: ForwardedRequest, tools: FaultTools): ForwardedResponse | Promise<ForwardedResponse>;
  /** Handles callbacks routed to {url}/relay/...; answers the sandbox's delivery. */
  relay?(delivery: ForwardedRequest, tools: FaultTools): Promise<number>;
}

export interface FaultyServer {
  url: string;
  close(): Promise<void>;
}

const HOP = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"]);

async function readAll(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** Forwards with node:http, which (unlike fetch) sends a body on a GET as the checker does on purpose. */
function forward(target: string, request: ForwardedRequest): Promise<ForwardedResponse> {
  return new Promise((resolve, reject) => {
    const body = Buffer.from(request.body, "utf8");
    const headers = { ...request.headers, ...((body.length > 0 || !/^(GET|HEAD)$/i.test(request.method)) && { "content-length": String(body.length) }) };
    const upstream = httpRequest(`${target}${request.url}`, { method: request.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const responseHeaders: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (!HOP.has(name) && value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(", ") : value;
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    upstream.on("error", reject);
    upstream.end(body);
  });
}

export async function startFaultyServer(target: string, credentials: { appKey: string; appSecret: string }, fault: Fault): Promise<FaultyServer> {
  let tools!: FaultTools;
  const server: Server = createServer((req, res) => {
    void (async () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(req.headers)) if (!HOP.has(name) && typeof value === "string") headers[name] = value;
      let request: ForwardedRequest = { method: req.method ?? "GET", url: req.url ?? "/", headers, body: await readAll(req) };
      if (request.url.startsWith("/relay/") && fault.relay) {
        const status = await fault.relay(request, tools);
        res.writeHead(status, { "Content-Type": "text/plain" }).end(status < 300 ? "success" : "fail");
        return;
      }
      const own = await fault.answer?.(request, tools);
      if (own) {
        res.writeHead(own.status, own.headers).end(own.body);
        return;
      }
      if (fault.request) request = await fault.request(request, tools);
      let response = await forward(target, request);
      if (fault.response) response = await fault.response(response, request, tools);
      res.writeHead(response.status, response.headers).end(response.body);
    })().catch((error: unknown) => {
      res.writeHead(599, { "Content-Type": "text/plain" }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  tools = {
    url,
    resign(request) {
      const signed = signRequestHeaders({ appKey: credentials.appKey, appSecret: credentials.appSecret, body: request.body });
      const headers = { ...request.headers };
      for (const name of Object.keys(headers)) if (/^x-(app-key|timestamp|nonce|sign)$/i.test(name)) delete headers[name];
      return { ...request, headers: { ...headers, ...signed } };
    },
  };
  return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
