// The server kit's own cost: handlers that answer a constant (a listStores page, a createOrder
// id), served either by the kit (signature, raw body, lossless JSON, request and response
// validation, envelope, int64 writer) or by bare Express (express.json(), the same handlers,
// JSON.stringify, no checks). `tsx kit-constant.ts kit|bare`; prints "listening
// http://127.0.0.1:PORT" once it listens and serves the signed interface under /open-api/v1
// (only listStores and createOrder).
import express, { type Request, type Response } from "express";
import { createMemoryNonceStore, createSignedRouter, type HandlerOutput } from "../../../src/server/index.js";
import { STORE_PAGE } from "./store-page.js";

const mode = process.argv[2] === "bare" ? "bare" : "kit";

const listStores = (): HandlerOutput<"listStores"> => STORE_PAGE;
const createOrder = (): HandlerOutput<"createOrder"> => 900000000001;

const app = express();
app.disable("x-powered-by");
if (mode === "kit") {
  const apps = new Map([["demo-app-key", { appSecrets: ["demo-app-secret"] }]]);
  app.use(
    "/open-api",
    createSignedRouter({
      handlers: { listStores, createOrder },
      partial: true,
      apps: (appKey) => apps.get(appKey),
      // The sandbox's capacity: a benchmark's nonces must not fill the store.
      nonceStore: createMemoryNonceStore({ capacity: 1_000_000 }),
    }),
  );
} else {
  app.use(express.json({ limit: "1mb" }));
  app.get("/open-api/v1/stores", (_req: Request, res: Response) => {
    res.type("application/json").send(JSON.stringify({ code: 0, msg: "success", data: listStores() }));
  });
  app.post("/open-api/v1/orders", (_req: Request, res: Response) => {
    res.type("application/json").send(JSON.stringify({ code: 0, msg: "success", data: createOrder() }));
  });
}

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
