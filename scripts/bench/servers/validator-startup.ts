// Start-up of the validator alone: from building it for the signed spec to its first validated
// answer, through Express on loopback. `node --import tsx validator-startup.ts assembly|public`
// prints one JSON line {"variant", "firstAnswerMs"} and exits. Modules are imported before the
// clock starts (the same express-openapi-validator code is loaded either way).
import express, { type NextFunction, type Request, type Response } from "express";
import type { AddressInfo } from "node:net";
import { loadBundle } from "../../../src/contract/index.js";
import * as assembly from "../../../src/server/eov/index.js";
import * as publicMiddleware from "./public-validator.js";

const variant = process.argv[2];
if (variant !== "assembly" && variant !== "public") throw new Error("usage: validator-startup.ts assembly|public");
const spec = loadBundle("signed");
// The answer is the spec's own example, so response validation passes as in the sandbox.
const answer = (spec as { paths: Record<string, any> }).paths["/stores"].get.responses["200"].content["application/json"].examples.firstPage.value as unknown;

const started = performance.now();
const validator = (variant === "public" ? publicMiddleware : assembly).createSpecValidator(spec);
const app = express();
app.use(validator.handle);
app.get("/open-api/v1/stores", (_req, res) => void res.json(answer));
app.use((error: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => void res.status(error.status ?? 500).json({ message: error.message }));
const server = app.listen(0, "127.0.0.1", async () => {
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/open-api/v1/stores?merchantId=10001&pageNo=1&pageSize=10`);
  const text = await response.text();
  const firstAnswerMs = performance.now() - started;
  if (response.status !== 200) throw new Error(`first answer ${response.status}: ${text.slice(0, 300)}`);
  process.stdout.write(`${JSON.stringify({ variant, firstAnswerMs })}\n`);
  server.close();
  server.closeAllConnections();
});
