// A real HTTP server on 127.0.0.1 (port 0) for the client tests. It records the raw bytes of
// every request and checks its signature with the signing module's own verifier, so a test
// can compare "what was signed" with "what arrived".
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryNonceStore, verifySignedRequest, type SignatureVerification } from "../../src/signing/index.js";

export const appKey = "test-app-key";
export const appSecret = "test-app-secret-0123456789";

export interface Received {
  method: string;
  /** Path and query as sent, e.g. "/open-api/v1/orders/1?merchantId=2". */
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The server-side signature check of this request. */
  verification: SignatureVerification;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  /** Raw text, so tests can put exact int64 digits on the wire. */
  body: string;
}

export interface TestServer {
  origin: string;
  received: Received[];
  close(): Promise<void>;
}

/** `{"code":0,"msg":"success","data":<dataJson>}`, with dataJson inserted as raw text. */
export const okEnvelope = (dataJson: string): Answer => ({
  headers: { "content-type": "application/json" },
  body: `{"code":0,"msg":"success","data":${dataJson}}`,
});

export const errorEnvelope = (status: number, code: number, msg: string): Answer => ({
  status,
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ code, msg, data: null }),
});

export async function startServer(answer: (request: Received) => Answer | Promise<Answer>): Promise<TestServer> {
  const received: Received[] = [];
  const nonceStore = createMemoryNonceStore();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks);
        const verification = await verifySignedRequest({
          headers: req.headers,
          body,
          secretsFor: (key) => (key === appKey ? [appSecret] : undefined),
          nonceStore,
        });
        const request: Received = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, verification };
        received.push(request);
        const reply = await answer(request);
        res.writeHead(reply.status ?? 200, reply.headers ?? {});
        res.end(reply.body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on which nothing listens: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A sleep that records the waits and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; waits: number[] } {
  const waits: number[] = [];
  return { waits, sleep: async (ms) => void waits.push(ms) };
}
