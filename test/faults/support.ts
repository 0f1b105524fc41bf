// Shared pieces of the fault tests: a callback receiver whose every answer is scripted
// (status, redirect, delay, hang, dropped connection), and polling helpers that wait for I/O,
// never for a schedule (schedules are driven by advancing the sandbox clock).
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";

export type ReceiverAnswer =
  | { status: number; location?: string; delayMs?: number }
  /** Never answers (the sender's timeout must fire). */
  | "hang"
  /** Closes the connection without an answer. */
  | "drop";

export interface Delivery {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** What the receiver did with it. */
  answer: ReceiverAnswer;
}

export interface ScriptedReceiver {
  url: string;
  port: number;
  deliveries: Delivery[];
  /** Answers for the next requests, in order; after they run out, 200 "success". */
  script: ReceiverAnswer[];
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1; `port` 0 picks a free one (give a port to come back up where one went down). */
export async function startScriptedReceiver(port = 0, path = "/mop/notify"): Promise<ScriptedReceiver> {
  const deliveries: Delivery[] = [];
  const script: ReceiverAnswer[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const answer = script.shift() ?? { status: 200 };
      deliveries.push({ at: Date.now(), headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), answer });
      if (answer === "hang") return;
      if (answer === "drop") return void req.socket.destroy();
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { "Content-Type": "text/plain", ...(answer.location !== undefined && { Location: answer.location }) });
        res.end(answer.status < 300 ? "success" : "fail");
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}${path}`,
    port: actual,
    deliveries,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const receiver = await startScriptedReceiver();
  await receiver.close();
  return receiver.port;
}

/** Polls (every 5 ms, for I/O to happen) until check answers something truthy. */
export async function until<T>(check: () => T | undefined | false | null, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
