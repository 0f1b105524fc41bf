// Receives the platform's callbacks on http://127.0.0.1:3000/notify and prints each verified
// event. Run it beside `mop sandbox --allow-insecure-notify` (see docs/quickstart.md).
// Settings: PORT (default 3000; 0 picks a free port), MOP_APP_SECRET (default demo-app-secret).
import express from "express";
import { createCallbackHandler } from "merchant-open-platform/callbacks";

const port = Number(process.env.PORT ?? 3000);
const app = express();
app.post(
  "/notify",
  createCallbackHandler({
    secrets: process.env.MOP_APP_SECRET ?? "demo-app-secret",
    onEvent: async (event) => {
      console.log(`verified ${event.type} ${event.id}:`, JSON.stringify(event.data, (_k, v) => (typeof v === "bigint" ? v.toString() : v)));
    },
  }),
);
const server = app.listen(port, "127.0.0.1", () => console.log(`receiving callbacks on http://127.0.0.1:${server.address().port}/notify`));
