// A platform server on the kit: all eighteen operations of the signed interface over the
// in-memory platform of platform.ts, its callbacks sent with the kit's callback sender, and the
// test hooks mop check needs. The kit checks signatures and nonces, validates every request and
// answer against the spec, writes the envelopes and keeps int64 ids exact; orders.ts and
// catalog.ts keep the business rules.
//
// Run (Node 22.18 or later strips the types; or npx tsx server.ts):
//   MOP_TEST_HOOKS=1 MOP_ALLOW_INSECURE_NOTIFY=1 MOP_CALLBACK_SCHEDULE_MS=500,1000,2000 node server.ts
//   npx mop check --base-url http://127.0.0.1:4030 --app-key demo-app-key --app-secret demo-app-secret \
//     --merchant-id 10001 --foreign-merchant-id 10003
// Environment: PORT (default 4030; 0 for any free port), HOST (127.0.0.1), MOP_APP_KEY and
// MOP_APP_SECRET (the demo app by default), MOP_TEST_HOOKS=1 mounts the test hooks at /sandbox,
// MOP_ALLOW_INSECURE_NOTIFY=1 accepts http:// notifyUrls on loopback hosts (a local receiver),
// MOP_CALLBACK_SCHEDULE_MS compresses the retry schedule (comma-separated ms), MOP_CALLBACK_URL is
// the app's callback URL (member-card callbacks).
import express from "express";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import { createCallbackSender, createMemoryCallbackOutbox, createMemoryNonceStore, createSignedRouter, createStderrLogger, createTestHooksRouter, type ServerLogger } from "merchant-open-platform/server";
import { catalogOperations, reviewHooks } from "./catalog.ts";
import { orderOperations, payTradeHook } from "./orders.ts";
import { Platform } from "./platform.ts";

export interface PlatformServerOptions {
  port?: number;
  host?: string;
  appKey?: string;
  appSecret?: string;
  /** Mount the test hooks (getClock, payTrade, credit-application review) at /sandbox. Test environments only. */
  testHooks?: boolean;
  /** The app's callback URL, where member-card callbacks go. Default none (they are marked failed). */
  callbackUrl?: string;
  /** Accept http:// notifyUrls on loopback hosts and send callbacks there (a local receiver). */
  allowInsecureNotify?: boolean;
  /** Delays between callback attempts; default the contract's 15 retries over about 24 h. */
  callbackScheduleMs?: readonly number[];
  logger?: ServerLogger;
}

export interface RunningPlatformServer {
  url: string;
  platform: Platform;
  close(): Promise<void>;
}

const LOOPBACK = /^http:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\//i;

export async function startPlatformServer(options: PlatformServerOptions = {}): Promise<RunningPlatformServer> {
  const appKey = options.appKey ?? "demo-app-key";
  const platform = new Platform(Date.now, { appKey, appSecret: options.appSecret ?? "demo-app-secret", callbackUrl: options.callbackUrl ?? null });
  const logger = options.logger ?? createStderrLogger("warn");
  const callbacks = createCallbackSender({
    apps: (key) => platform.apps.get(key),
    outbox: createMemoryCallbackOutbox(),
    ...(options.callbackScheduleMs && { scheduleMs: options.callbackScheduleMs }),
    // HTTPS only, as the contract's notifyUrl rule says; loopback http only when asked for. (A
    // platform on a network also refuses hosts that resolve to private addresses here.)
    checkTarget: (url) => (/^https:\/\//i.test(url) || (options.allowInsecureNotify === true && LOOPBACK.test(url)) ? undefined : "only https:// targets are contacted"),
    logger,
  });
  await callbacks.resume();

  const app = express();
  app.disable("x-powered-by");
  app.use(
    "/open-api",
    createSignedRouter({
      handlers: { ...orderOperations(platform), ...catalogOperations(platform) },
      apps: (key) => platform.apps.get(key),
      nonceStore: createMemoryNonceStore(),
      allowInsecureNotify: options.allowInsecureNotify === true,
      logger,
    }),
  );
  if (options.testHooks === true) {
    app.use("/sandbox", createTestHooksRouter({ hooks: { payTrade: payTradeHook(platform, callbacks), ...reviewHooks(platform, callbacks) }, now: platform.now, logger }));
  }

  const server = app.listen(options.port ?? 4030, options.host ?? "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(":") ? `[${address}]` : address}:${port}`,
    platform,
    close: () =>
      new Promise<void>((resolve) => {
        callbacks.close();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// Started as a program (node server.ts), not imported.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = process.env;
  const schedule = env.MOP_CALLBACK_SCHEDULE_MS?.split(",").map(Number);
  const running = await startPlatformServer({
    port: Number(env.PORT ?? 4030),
    host: env.HOST ?? "127.0.0.1",
    ...(env.MOP_APP_KEY && { appKey: env.MOP_APP_KEY }),
    ...(env.MOP_APP_SECRET && { appSecret: env.MOP_APP_SECRET }),
    ...(env.MOP_CALLBACK_URL && { callbackUrl: env.MOP_CALLBACK_URL }),
    testHooks: env.MOP_TEST_HOOKS === "1",
    allowInsecureNotify: env.MOP_ALLOW_INSECURE_NOTIFY === "1",
    ...(schedule && { callbackScheduleMs: schedule }),
  });
  console.log(`platform server listening on ${running.url}/open-api/v1${env.MOP_TEST_HOOKS === "1" ? ` (test hooks at ${running.url}/sandbox)` : ""}`);
  const stop = () => void running.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
