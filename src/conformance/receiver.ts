// A callback receiver the checker runs for the callback checks: records every delivery with
// its raw body and answers what the check asks for (to provoke a retry, or to acknowledge).
import { createServer, type IncomingMessage, type RequestListener, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";

export interface Delivery {
  headers: Record<string, string>;
  rawBody: Buffer;
  receivedAt: number;
  /** HTTP status the receiver answered. */
  answeredStatus: number;
}

export type Responder = (delivery: Omit<Delivery, "answeredStatus">, index: number) => number;

export class CallbackReceiver {
  readonly deliveries: Delivery[] = [];
  private responder: Responder = () => 200;
  private waiters: Array<() => void> = [];

  private constructor(private readonly server: Server, readonly url: string) {}

  /** With tls (PEM certificate and key) the receiver serves HTTPS and its own URL is https://. */
  static async start(host: string, port: number, publicUrl: string | undefined, runId: string, tls?: { cert: string | Buffer; key: string | Buffer }): Promise<CallbackReceiver> {
    let receiver: CallbackReceiver | undefined;
    const listener: RequestListener = (req, res) => void receiver!.handle(req).then((status) => res.writeHead(status, { "Content-Type": "text/plain" }).end(status < 300 ? "success" : "fail"));
    const server: Server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, listener) : createServer(listener);
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address() as AddressInfo;
    const local = `${tls ? "https" : "http"}://${host.includes(":") ? `[${host}]` : host}:${address.port}/mop-check/${runId}`;
    receiver = new CallbackReceiver(server, publicUrl ?? local);
    return receiver;
  }

  /** Decide the answer to each further delivery (by its index among all deliveries). */
  respondWith(responder: Responder): void {
    this.responder = responder;
  }

  private async handle(req: IncomingMessage): Promise<number> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
    const delivery = { headers, rawBody: Buffer.concat(chunks), receivedAt: Date.now() };
    const answeredStatus = this.responder(delivery, this.deliveries.length);
    this.deliveries.push({ ...delivery, answeredStatus });
    for (const wake of this.waiters.splice(0)) wake();
    return answeredStatus;
  }

  /**
   * Resolves with the matching deliveries as soon as there are at least `count`; after timeoutMs,
   * with those there are (fewer, maybe none). Never rejects: the caller judges what arrived.
   */
  async waitFor(match: (delivery: Delivery) => boolean, count: number, timeoutMs: number): Promise<Delivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.deliveries.filter(match);
      if (found.length >= count) return found;
      const left = deadline - Date.now();
      if (left <= 0) return found;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
  }
}
