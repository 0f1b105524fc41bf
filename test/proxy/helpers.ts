// Test helpers for the proxy: a recording upstream (what exactly arrived, and a scripted
// answer), a raw-socket client that sends request lines unnormalised, and a proxy in front of
// the real sandbox sharing its injected clock.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { startProxy, type ProxyOptions, type ProxyViolation, type RunningProxy } from "../../src/proxy/index.js";
import { DEMO, startSandbox, type TestSandbox } from "../support/sandbox.js";

export interface Arrival {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

export interface RecordingUpstream {
  url: string;
  arrivals: Arrival[];
  /** Sets how the next requests are answered. */
  answer: (respond: (req: IncomingMessage, res: ServerResponse, arrival: Arrival) => void) => void;
  close(): Promise<void>;
}

/** Finds a header in a raw list case-insensitively (all values). */
export function rawHeader(raw: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i]!.toLowerCase() === name.toLowerCase()) values.push(raw[i + 1]!);
  return values;
}

export async function startRecordingUpstream(): Promise<RecordingUpstream> {
  const arrivals: Arrival[] = [];
  let respond: (req: IncomingMessage, res: ServerResponse, arrival: Arrival) => void = (_req, res) => {
    const body = JSON.stringify({ code: 0, msg: "success", data: null });
    res.writeHead(200, { "Content-Type": "application/json" }).end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const arrival = { method: req.method ?? "", url: req.url ?? "", rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      arrivals.push(arrival);
      respond(req, res, arrival);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    answer: (next) => void (respond = next),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface RawAnswer {
  status: number;
  head: string;
  headers: [string, string][];
  body: Buffer;
}

/** Sends bytes on a fresh connection and reads until the server closes it. */
export function rawExchange(url: string, request: Buffer | string): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf("\r\n\r\n");
      const head = all.subarray(0, split < 0 ? all.length : split).toString("latin1");
      const [statusLine = "", ...lines] = head.split("\r\n");
      resolve({
        status: Number(statusLine.split(" ")[1]),
        head,
        headers: lines.map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]),
        body: split < 0 ? Buffer.alloc(0) : all.subarray(split + 4),
      });
    });
    // Not end(): a half-closed socket makes node:http drop the request; "Connection: close" ends it.
    socket.write(request);
  });
}

/** A one-request HTTP/1.1 message with Connection: close. */
export function rawRequest(method: string, target: string, headers: Record<string, string> = {}, body: Buffer | string = ""): Buffer {
  const bytes = Buffer.from(body);
  const lines = [`${method} ${target} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close", ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (bytes.length) lines.push(`Content-Length: ${bytes.length}`);
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "latin1"), bytes]);
}

export interface SandboxBehindProxy {
  sandbox: TestSandbox;
  proxy: RunningProxy;
  violations: ProxyViolation[];
  close(): Promise<void>;
}

/** The real sandbox, and a proxy in front of it on the same injected clock. */
export async function sandboxBehindProxy(options: Partial<ProxyOptions> = {}): Promise<SandboxBehindProxy> {
  const sandbox = await startSandbox();
  const violations: ProxyViolation[] = [];
  const proxy = await startProxy({
    target: sandbox.url,
    now: () => sandbox.sandbox.clock.now(),
    onViolation: (violation) => violations.push(violation),
    ...options,
  });
  return {
    sandbox,
    proxy,
    violations,
    close: async () => {
      await proxy.close();
      await sandbox.close();
    },
  };
}

export const DEMO_SECRETS = new Map([[DEMO.appKey, [DEMO.appSecret]]]);
