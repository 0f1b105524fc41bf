// /sandbox/listen: what `mop listen` talks to. Both requests are signed like the signed
// interface's (the four headers, the app's secret, the window, a fresh nonce), so only the
// app's own developer can receive its callbacks:
//   GET  /sandbox/listen          server-sent events: `ready` once, then a `delivery` per attempt
//                                 (the exact body and the signature headers to forward), a
//                                 comment every 15 s to keep proxies from closing it, and `closed`
//                                 when the sandbox ends the session (replaced, stopping)
//   POST /sandbox/listen/acks     the local receiver's answer to one attempt:
//                                 {"attemptId","httpStatus","error","responseBody","durationMs"}
// Answers other than the stream use the signed interface's envelope and codes.
import express, { type Request, type Response, type Router } from "express";
import { SignedErrors } from "../../../generated/error-codes.js";
import { failureEnvelope, SIGNATURE_WINDOW_SECONDS } from "../../contract/index.js";
import { requestState } from "../../server/index.js";
import { sendRaw } from "../../server/internal.js";
import { verifySignedRequest } from "../../signing/index.js";
import type { SandboxContext } from "../context.js";
import { ListenSessions, type ListenAck, type ListenSession } from "./sessions.js";

const HEARTBEAT_MS = 15_000;
const ACK_BODY_LIMIT = 16 * 1024;

type SignedName = keyof typeof SignedErrors;

function refuse(res: Response, name: SignedName, message: string, headers: Record<string, string> = {}): void {
  const entry = SignedErrors[name];
  res.set(headers);
  sendRaw(res, entry.http, failureEnvelope("signed", entry.code, message));
}

/** The app whose signature this request carries, or undefined once refused. */
async function signedApp(ctx: SandboxContext, req: Request, res: Response, body: string): Promise<string | undefined> {
  const result = await verifySignedRequest({
    headers: req.headers,
    body,
    secretsFor: (appKey) => ctx.records.app(appKey)?.appSecrets,
    now: () => ctx.clock.now(),
    nonceStore: ctx.nonceStore,
    windowSeconds: SIGNATURE_WINDOW_SECONDS,
  });
  if (result.ok) return result.appKey;
  refuse(res, result.name, result.message, result.name === "RATE_LIMITED" ? { "Retry-After": "5" } : {});
  return undefined;
}

async function readBody(req: Request): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ACK_BODY_LIMIT) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The ack's fields checked, or the first problem, naming the field. */
function readAck(text: string): ListenAck | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "body: not valid JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "body: must be a JSON object";
  const ack = value as Record<string, unknown>;
  const allowed = ["attemptId", "httpStatus", "error", "responseBody", "durationMs"];
  const unknown = Object.keys(ack).find((name) => !allowed.includes(name));
  if (unknown !== undefined) return `body.${unknown} is not allowed (unknown property)`;
  if (typeof ack.attemptId !== "string" || !/^att_[0-9a-f]{24}$/.test(ack.attemptId)) return "body.attemptId must be the attemptId of a delivery event (att_ and 24 hex digits)";
  if (ack.httpStatus !== null && !(Number.isInteger(ack.httpStatus) && (ack.httpStatus as number) >= 100 && (ack.httpStatus as number) <= 599)) return "body.httpStatus must be an HTTP status from 100 to 599, or null";
  if (ack.error !== null && (typeof ack.error !== "string" || ack.error.length > 500)) return "body.error must be a string of at most 500 characters, or null";
  if (ack.httpStatus === null && ack.error === null) return "body.error must say why there is no httpStatus";
  if (ack.responseBody !== null && (typeof ack.responseBody !== "string" || ack.responseBody.length > 200)) return "body.responseBody must be a string of at most 200 characters, or null";
  if (!Number.isInteger(ack.durationMs) || (ack.durationMs as number) < 0) return "body.durationMs must be a whole number of milliseconds";
  return { attemptId: ack.attemptId, httpStatus: ack.httpStatus as number | null, error: ack.error as string | null, responseBody: ack.responseBody as string | null, durationMs: ack.durationMs as number };
}

export function listenRouter(ctx: SandboxContext, sessions: ListenSessions): Router {
  const router = express.Router();

  router.get("/", async (req, res) => {
    requestState(res).operationId = "listen";
    if (req.headers["content-length"] !== undefined && req.headers["content-length"] !== "0") {
      return refuse(res, "VALIDATION_FAILED", "body: GET /sandbox/listen takes no request body.");
    }
    const appKey = await signedApp(ctx, req, res, "");
    if (appKey === undefined) return;
    res.writeHead(200, { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no" });
    const write = (text: string) => {
      if (!res.writableEnded && !res.destroyed) res.write(text);
    };
    const session: ListenSession = {
      sessionId: ListenSessions.newSessionId(),
      appKey,
      send: (event, data) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
      end: (reason) => {
        write(`event: closed\ndata: ${JSON.stringify({ reason })}\n\n`);
        if (!res.writableEnded) res.end();
      },
    };
    const heartbeat = setInterval(() => write(": keep-alive\n\n"), HEARTBEAT_MS);
    heartbeat.unref();
    req.socket.setTimeout(0);
    res.once("close", () => {
      clearInterval(heartbeat);
      void sessions.closed(session);
    });
    try {
      await sessions.open(session);
    } catch (error) {
      session.end(`the sandbox could not register the session: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    session.send("ready", { appKey, sessionId: session.sessionId, callbackTimeoutMs: ctx.callbackTimeoutMs ?? 5000 });
  });

  router.post("/acks", async (req, res) => {
    requestState(res).operationId = "listenAck";
    const text = await readBody(req);
    if (text === undefined) return refuse(res, "BODY_TOO_LARGE", `The body is larger than ${ACK_BODY_LIMIT} bytes.`);
    const appKey = await signedApp(ctx, req, res, text);
    if (appKey === undefined) return;
    const ack = readAck(text);
    if (typeof ack === "string") return refuse(res, "VALIDATION_FAILED", ack);
    if (!sessions.acknowledge(appKey, ack)) {
      return refuse(res, "VALIDATION_FAILED", `body.attemptId ${ack.attemptId}: no attempt of app ${appKey} waits for it here (it timed out, was answered already, or the session moved to another instance).`);
    }
    res.status(200).type("application/json").send(JSON.stringify({ code: 0, msg: "success", data: null }));
  });

  router.use((_req, res) => refuse(res, "PATH_NOT_FOUND", "/sandbox/listen serves GET /sandbox/listen (the stream) and POST /sandbox/listen/acks."));
  return router;
}
