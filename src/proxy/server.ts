// mop proxy: sits between an app and a server, validates every request (spec and signature)
// and every response (spec), passes traffic through unchanged, and logs each violation.
// With failOnViolation a violating request or response is answered with the envelope error.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { SignedErrors } from "../../generated/error-codes.js";
import { judgeAnswer } from "../conformance/judge.js";
import type { Exchange } from "../conformance/http.js";
import { loadSpec, SpecSchemas } from "../conformance/spec.js";
import { parseJsonLossless } from "../json/index.js";
import { createMemoryNonceStore } from "../signing/index.js";
import { checkRequestShape, checkSignature } from "./request-check.js";
import { RouteTable } from "./routes.js";

export interface ProxyViolation {
  time: string;
  direction: "request" | "response";
  method: string;
  path: string;
  operationId: string | undefined;
  problems: string[];
}

export interface ProxyOptions {
  /** Base address of the server, e.g. https://staging.example.com */
  target: string;
  host?: string;
  port?: number;
  /** appKey → valid secrets; without them the signature is checked for presence only. */
  secrets?: Map<string, string[]>;
  failOnViolation?: boolean;
  strictHttp?: boolean;
  onViolation?: (violation: ProxyViolation) => void;
  fetch?: typeof fetch;
}

const BASES = [
  { prefix: "/open-api/v1", variant: "signed" as const },
  { prefix: "/open-api", variant: "signed" as const },
  { prefix: "/v1", variant: "keyed" as const },
];
const HOP_BY_HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "host", "content-length", "proxy-connection", "te", "trailer"]);
const MAX_BODY = 1024 * 1024;

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const target = options.target.replace(/\/+$/, "");
  const schemas = { signed: new SpecSchemas(loadSpec("signed"), "signed"), keyed: new SpecSchemas(loadSpec("keyed"), "keyed") };
  const routes = { signed: new RouteTable(schemas.signed), keyed: new RouteTable(schemas.keyed) };
  const nonceStore = createMemoryNonceStore({ capacity: 200_000 });
  const report = (violation: ProxyViolation) => options.onViolation?.(violation);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://proxy.local");
    const body = await readBody(req);
    const method = req.method ?? "GET";
    const base = BASES.find((b) => url.pathname === b.prefix || url.pathname.startsWith(`${b.prefix}/`));
    const relative = base ? url.pathname.slice(base.prefix.length) || "/" : url.pathname;
    const route = base ? routes[base.variant].match(method, relative) : undefined;
    const operationId = route && route !== "method" ? route.operationId : undefined;
    const requestProblems: string[] = [];
    if (body === undefined) requestProblems.push(`the body is larger than ${MAX_BODY} bytes`);
    else if (!base || route === undefined) requestProblems.push(`no operation of the contract at ${url.pathname}`);
    else if (route === "method") requestProblems.push(`${method} is not an operation at ${url.pathname}`);
    else {
      const shape = { method, query: url.searchParams, headers: req.headers, body };
      requestProblems.push(...checkRequestShape(schemas[base.variant], route, shape));
      if (base.variant === "signed") requestProblems.push(...(await checkSignature(shape, options.secrets, nonceStore)));
      else if (!/^Bearer\s+\S+/i.test(String(req.headers.authorization ?? ""))) requestProblems.push("Authorization: Bearer <API_KEY> is missing");
    }
    if (requestProblems.length) {
      report({ time: new Date().toISOString(), direction: "request", method, path: url.pathname, operationId, problems: requestProblems });
      if (options.failOnViolation) return answerViolation(res, base?.variant ?? "signed", requestProblems, "request");
    }

    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : value;
    let upstream: Response;
    try {
      upstream = await (options.fetch ?? fetch)(`${target}${url.pathname}${url.search}`, { method, headers, ...(body && body.length && { body }), redirect: "manual" });
    } catch (error) {
      res.writeHead(502, { "Content-Type": "text/plain" }).end(`mop proxy: cannot reach ${target}: ${(error as Error).message}`);
      return;
    }
    const responseBody = Buffer.from(await upstream.arrayBuffer());
    if (operationId && base) {
      const responseHeaders: Record<string, string> = {};
      upstream.headers.forEach((value, name) => (responseHeaders[name] = value));
      const exchange: Exchange = { request: { method, url: url.pathname, headers }, response: { status: upstream.status, headers: responseHeaders, bodyText: responseBody.toString("utf8") }, durationMs: 0 };
      try {
        exchange.response!.json = parseJsonLossless(exchange.response!.bodyText);
      } catch {
        // judged as "not a JSON envelope"
      }
      const verdict = judgeAnswer(schemas[base.variant], base.variant, operationId, exchange, options.strictHttp ?? false);
      if (verdict.problems.length) {
        report({ time: new Date().toISOString(), direction: "response", method, path: url.pathname, operationId, problems: verdict.problems });
        if (options.failOnViolation) return answerViolation(res, base.variant, verdict.problems, "response");
      }
    }
    const outHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_BY_HOP.has(name) && name !== "content-encoding") outHeaders[name] = value;
    });
    res.writeHead(upstream.status, outHeaders).end(responseBody);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
      res.end(`mop proxy: ${(error as Error).message}`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${address.port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function answerViolation(res: ServerResponse, variant: "signed" | "keyed", problems: string[], direction: "request" | "response"): void {
  const text = `mop proxy refused the ${direction}: ${problems.join("; ")}`;
  const [status, envelope] =
    direction === "request"
      ? variant === "signed"
        ? [400, { code: SignedErrors.VALIDATION_FAILED.code, msg: text, data: null }]
        : [400, { code: 400, message: text, data: null }]
      : variant === "signed"
        ? [502, { code: SignedErrors.INTERNAL_ERROR.code, msg: text, data: null }]
        : [502, { code: 500, message: text, data: null }];
  res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(envelope));
}
