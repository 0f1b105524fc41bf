// Sends one request to the target and reads its answer whole, byte for byte: node:http rather
// than fetch, because fetch normalises the path, rewrites headers and decompresses bodies.
// Failures come back as values (unreachable, timeout, too large), never as thrown errors.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

export interface UpstreamAnswer {
  status: number;
  statusMessage: string;
  rawHeaders: string[];
  body: Buffer;
}

export type UpstreamResult = { ok: true; answer: UpstreamAnswer } | { ok: false; failure: "unreachable" | "timeout" | "too-large"; message: string };

export interface UpstreamOptions {
  /** Base address; its path (if any) is put before every forwarded path. */
  target: string;
  /** The whole exchange (connect, send, answer read) must finish within this. */
  timeoutMs: number;
  /** Answers larger than this are not passed on (they cannot be judged). */
  maxAnswerBytes: number;
}

export interface Upstream {
  /** host[:port] of the target, for the Host header. */
  readonly host: string;
  send(method: string, forwardedPath: string, headers: string[], body: Buffer | undefined): Promise<UpstreamResult>;
  close(): void;
}

export function createUpstream(options: UpstreamOptions): Upstream {
  const target = new URL(options.target);
  const secure = target.protocol === "https:";
  const basePath = target.pathname.replace(/\/+$/, "");
  // Keep-alive connections to the target: a new TCP connection per request would cost more than
  // the proxy's whole budget on loopback.
  const agentOptions = { keepAlive: true, noDelay: true };
  const agent = secure ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
  const request = secure ? httpsRequest : httpRequest;

  function attempt(method: string, path: string, headers: string[], body: Buffer | undefined, deadline: number): Promise<UpstreamResult & { retry?: boolean }> {
    return new Promise((resolve) => {
      let settled = false;
      let outgoing: ClientRequest | undefined;
      const finish = (result: UpstreamResult & { retry?: boolean }) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const timer = setTimeout(() => {
        finish({ ok: false, failure: "timeout", message: `${target.origin} did not answer within ${options.timeoutMs} ms` });
        outgoing?.destroy();
      }, Math.max(0, deadline - Date.now()));
      try {
        outgoing = request({ protocol: target.protocol, hostname: target.hostname, port: target.port, method, path: basePath + path, headers, agent, setHost: false });
      } catch (error) {
        // e.g. a path with characters node:http will not put on the wire
        finish({ ok: false, failure: "unreachable", message: `cannot send the request to ${target.origin}: ${(error as Error).message}` });
        return;
      }
      let answered = false;
      outgoing.on("response", (response: IncomingMessage) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxAnswerBytes) {
            finish({ ok: false, failure: "too-large", message: `the answer of ${target.origin} is larger than ${options.maxAnswerBytes} bytes` });
            response.destroy();
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () =>
          finish({ ok: true, answer: { status: response.statusCode ?? 502, statusMessage: response.statusMessage ?? "", rawHeaders: response.rawHeaders, body: Buffer.concat(chunks, size) } }),
        );
        response.on("error", (error) => finish({ ok: false, failure: "unreachable", message: `the answer of ${target.origin} broke off: ${error.message}` }));
        response.on("aborted", () => finish({ ok: false, failure: "unreachable", message: `the answer of ${target.origin} broke off` }));
      });
      outgoing.on("error", (error: NodeJS.ErrnoException) => {
        // A kept-alive connection the target closed meanwhile: safe to try once on a fresh one.
        const retry = !answered && outgoing!.reusedSocket && error.code === "ECONNRESET";
        finish({ ok: false, failure: "unreachable", message: `cannot reach ${target.origin}: ${error.code ?? error.message}`, retry });
      });
      outgoing.end(body);
    });
  }

  return {
    host: target.host,
    async send(method, path, headers, body) {
      const deadline = Date.now() + options.timeoutMs;
      const first = await attempt(method, path, headers, body, deadline);
      if (first.ok || !first.retry) return first;
      return attempt(method, path, headers, body, deadline);
    },
    close: () => agent.destroy(),
  };
}
