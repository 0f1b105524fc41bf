// mop proxy: sits between an app and a server, validates every request (spec and signature)
// and every answer (spec), passes traffic through byte for byte, and logs each violation.
// With failOnViolation a violating request or answer is answered with the envelope error.
// With sign, requests to the signed interface get a fresh signature on the way (signing.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { RouteTable, schemasFor } from "../contract/index.js";
import { createMemoryNonceStore } from "../signing/index.js";
import { declaredTooLarge, MAX_BODY_BYTES, readBody } from "./body.js";
import { checkAnswer } from "./answer-check.js";
import { refusalAnswer, sendRefusal } from "./envelope.js";
import { endToEnd, flatten, pairsOf, type HeaderPairs } from "./headers.js";
import { bodyOnBodylessOperation, capProblems, checkRequestShape, checkSignature } from "./request-check.js";
import { interfaceOf, parseRequestTarget, type Variant } from "./request-target.js";
import { signedHeaders, willSign } from "./signing.js";
import { proxyServedHosts, siteRefusal } from "./site-guard.js";
import { createUpstream } from "./upstream.js";
import { ProxyConfigError } from "./errors.js";

export interface ProxyViolation {
  time: string;
  direction: "request" | "response";
  method: string;
  path: string;
  operationId: string | undefined;
  problems: string[];
}

export interface ProxySigning {
  /** The app that signs requests naming no configured X-App-Key. Default: the first of `secrets`. */
  appKey?: string;
  /** Re-sign requests that already carry X-Sign (default: they pass unchanged). */
  replace?: boolean;
  /** Nonce source, for tests. Default: a random UUID per request. */
  nonce?: () => string;
}

export interface ProxyOptions {
  /** Base address of the server, e.g. https://staging.example.com (a path is put before every forwarded path). */
  target: string;
  host?: string;
  port?: number;
  /** appKey → valid secrets; without them the signature is checked for presence only. */
  secrets?: Map<string, string[]>;
  /** Sign requests to the signed interface with the secrets given (the first secret of each app). */
  sign?: ProxySigning | boolean;
  failOnViolation?: boolean;
  strictHttp?: boolean;
  onViolation?: (violation: ProxyViolation) => void;
  /** The target must answer within this (connect, send, whole answer). Default 30,000 ms; then 504. */
  timeoutMs?: number;
  /** Answers larger than this are refused with 502 (they cannot be judged). Default 16 MiB. */
  maxAnswerBytes?: number;
  /** Client side: time to receive a request's headers / the whole request; idle keep-alive time. */
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
  /** Most client connections at once. Default 1,024. */
  maxConnections?: number;
  /**
   * Host names answered besides loopback names, the listen address and IP literals; a request
   * naming another host is refused with 100017 (DNS rebinding), as the sandbox refuses it.
   */
  allowedHosts?: readonly string[];
  /** Epoch milliseconds, for signing and violation times. Default Date.now. */
  now?: () => number;
}

export interface RunningProxy {
  url: string;
  close(): Promise<void>;
}

export const PROXY_DEFAULTS = {
  timeoutMs: 30_000,
  maxAnswerBytes: 16 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 1_024,
} as const;

export async function startProxy(options: ProxyOptions): Promise<RunningProxy> {
  const now = options.now ?? Date.now;
  const servedHosts = proxyServedHosts(options.host ?? "127.0.0.1", options.allowedHosts);
  const schemas = { signed: schemasFor("signed"), keyed: schemasFor("keyed") };
  const routes = { signed: new RouteTable(schemas.signed.operations.values()), keyed: new RouteTable(schemas.keyed.operations.values()) };
  const nonceStore = createMemoryNonceStore({ capacity: 200_000 });
  const signing = signingOptions(options, now);
  checkTarget(options.target);
  const upstream = createUpstream({ target: options.target, timeoutMs: options.timeoutMs ?? PROXY_DEFAULTS.timeoutMs, maxAnswerBytes: options.maxAnswerBytes ?? PROXY_DEFAULTS.maxAnswerBytes });
  const report = (violation: Omit<ProxyViolation, "time">) => options.onViolation?.({ time: new Date(now()).toISOString(), ...violation });

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? "GET";
    const refusedSite = siteRefusal(req, servedHosts);
    if (refusedSite) {
      report({ direction: "request", method, path: (req.url ?? "").split("?", 1)[0]!.slice(0, 200), operationId: undefined, problems: [refusedSite] });
      return sendRefusal(res, "signed", "site-refused", refusedSite, true);
    }
    const target = parseRequestTarget(req.url ?? "/");
    if (!target) return sendRefusal(res, "signed", "invalid-request", `mop proxy forwards origin-form or absolute-form request targets only, not ${JSON.stringify((req.url ?? "").slice(0, 80))}`, true);
    const where = interfaceOf(target.path);
    const variant: Variant = where?.variant ?? "signed";
    const route = where ? routes[where.variant].match(method, where.relative) : undefined;
    const operationId = route && route !== "method" ? route.operationId : undefined;

    // --sign never signs a body an operation does not take (DESIGN item 15): the signature would
    // make a shifted-nonce replay of a GET, or any other body where none belongs, look genuine.
    if (signing && where?.variant === "signed" && operationId && willSign(req, signing.replace)) {
      const problem = bodyOnBodylessOperation(schemas.signed, operationId, method, req.headers);
      if (problem) {
        report({ direction: "request", method, path: target.path, operationId, problems: [problem] });
        return sendRefusal(res, "signed", "invalid-request", `mop proxy did not sign or forward the request: ${problem}.`, true);
      }
    }
    if (declaredTooLarge(req)) {
      report({ direction: "request", method, path: target.path, operationId, problems: [`the body (Content-Length ${req.headers["content-length"]}) is larger than ${MAX_BODY_BYTES} bytes`] });
      return sendRefusal(res, variant, "body-too-large", `The request body is larger than 1 MiB (${MAX_BODY_BYTES} bytes); mop proxy did not forward it.`, true);
    }
    const read = await readBody(req);
    if (!read.ok) {
      if (read.reason === "aborted") return;
      report({ direction: "request", method, path: target.path, operationId, problems: [`the body is larger than ${MAX_BODY_BYTES} bytes`] });
      return sendRefusal(res, variant, "body-too-large", `The request body is larger than 1 MiB (${MAX_BODY_BYTES} bytes); mop proxy did not forward it.`, true);
    }
    const body = read.body;
    let pairs = pairsOf(req.rawHeaders);
    const resigned = signing && where?.variant === "signed" ? signedHeaders(pairs, body, signing) : undefined;
    if (resigned) pairs = resigned;

    const problems: string[] = [];
    // Outside both interfaces (a sandbox's control API, its cashier pages) nothing is judged.
    if (!where) {
      /* passed on unchecked */
    } else if (route === undefined) problems.push(`no operation of the contract at ${target.path}`);
    else if (route === "method") problems.push(`${method} is not an operation at ${target.path}`);
    else {
      const shape = { method, query: new URLSearchParams(target.query), headers: req.headers, body };
      problems.push(...checkRequestShape(schemas[where.variant], route, shape));
      // A signature the proxy just made is right by construction; checking it would only spend a nonce.
      if (where.variant === "signed" && !resigned) problems.push(...(await checkSignature(shape, options.secrets, nonceStore, now)));
      else if (where.variant === "keyed" && !/^Bearer\s+\S+/i.test(String(req.headers.authorization ?? ""))) problems.push("Authorization: Bearer <API_KEY> is missing");
    }
    if (problems.length) {
      const listed = capProblems(problems);
      report({ direction: "request", method, path: target.path, operationId, problems: listed });
      if (options.failOnViolation) return sendRefusal(res, variant, "invalid-request", `mop proxy refused the request: ${listed.join("; ")}`);
    }

    const forwardHeaders: HeaderPairs = [["Host", upstream.host], ...endToEnd(pairs, ["host", "content-length"])];
    if (body.length > 0 || req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined) forwardHeaders.push(["Content-Length", String(body.length)]);
    const result = await upstream.send(method, target.forwarded, flatten(forwardHeaders), body.length > 0 ? body : undefined);
    if (!result.ok) {
      report({ direction: "response", method, path: target.path, operationId, problems: [result.message] });
      return sendRefusal(res, variant, result.failure === "timeout" ? "timeout" : result.failure === "too-large" ? "invalid-response" : "unreachable", `mop proxy: ${result.message}`);
    }
    const answer = result.answer;
    const answerPairs = pairsOf(answer.rawHeaders);
    if (where && operationId) {
      const answerProblems = checkAnswer(schemas[where.variant], where.variant, operationId, answer.status, answerPairs, answer.body, options.strictHttp ?? false);
      if (answerProblems.length) {
        const listed = capProblems(answerProblems);
        report({ direction: "response", method, path: target.path, operationId, problems: listed });
        if (options.failOnViolation) return sendRefusal(res, variant, "invalid-response", `mop proxy refused the answer: ${listed.join("; ")}`);
      }
    }
    const bodiless = method === "HEAD" || answer.status === 204 || answer.status === 304 || answer.status < 200;
    const outHeaders = endToEnd(answerPairs, bodiless ? [] : ["content-length"]);
    if (!bodiless) outHeaders.push(["Content-Length", String(answer.body.length)]);
    res.writeHead(answer.status, answer.statusMessage, flatten(outHeaders));
    res.end(bodiless ? undefined : answer.body);
  };

  const server: Server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? PROXY_DEFAULTS.headersTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? PROXY_DEFAULTS.requestTimeoutMs,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? PROXY_DEFAULTS.keepAliveTimeoutMs,
    },
    (req, res) => {
      req.on("error", () => undefined);
      res.on("error", () => undefined);
      handle(req, res).catch((error: unknown) => {
        // A defect of the proxy itself: an envelope, never a stack trace.
        report({ direction: "request", method: req.method ?? "GET", path: (req.url ?? "").split("?", 1)[0]!, operationId: undefined, problems: [`mop proxy failed: ${(error as Error).message}`] });
        sendRefusal(res, interfaceOf((req.url ?? "").split("?", 1)[0]!)?.variant ?? "signed", "unreachable", "mop proxy failed while handling the request; nothing was forwarded after the failure.");
      });
    },
  );
  server.maxConnections = options.maxConnections ?? PROXY_DEFAULTS.maxConnections;
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable) return socket.destroy();
    const [status, text] =
      error.code === "HPE_HEADER_OVERFLOW" ? ["431 Request Header Fields Too Large", "The request headers are too large."]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? ["408 Request Timeout", "The request did not arrive in time."]
      : ["400 Bad Request", "The request is not valid HTTP."];
    const { body } = refusalAnswer("signed", "invalid-request", text);
    socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        upstream.close();
      }),
  };
}

/** An http(s) URL without credentials: they would never be sent, and messages must not show them. */
function checkTarget(target: string): void {
  const parsed = URL.canParse(target) ? new URL(target) : undefined;
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) throw new ProxyConfigError("target", "target must be an http(s) URL, e.g. http://127.0.0.1:4010");
  if (parsed.username !== "" || parsed.password !== "") throw new ProxyConfigError("target", "target must not carry credentials (user:password@): the proxy never sends them; an Authorization header the client sends is passed through");
}

function signingOptions(options: ProxyOptions, now: () => number) {
  if (!options.sign) return undefined;
  const sign = options.sign === true ? {} : options.sign;
  const apps = options.secrets;
  if (!apps || apps.size === 0) throw new ProxyConfigError("secrets", "signing needs an app key and its secret");
  const defaultAppKey = sign.appKey ?? [...apps.keys()][0]!;
  if (!apps.get(defaultAppKey)?.length) throw new ProxyConfigError("sign.appKey", `signing app ${defaultAppKey} has no secret`);
  return { apps, defaultAppKey, replace: sign.replace ?? false, now, ...(sign.nonce && { nonce: sign.nonce }) };
}
