// A server that answers every request at once with the same listStores success envelope, for
// measuring what the client itself costs (the server's share of a call is close to nothing).
// Prints "listening http://127.0.0.1:PORT" once it listens.
import { createServer } from "node:http";
import { STORE_PAGE } from "./store-page.js";

const body = JSON.stringify({ code: 0, msg: "success", data: STORE_PAGE });
const length = String(Buffer.byteLength(body));

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8", "Content-Length": length });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}\n`);
});
process.once("SIGTERM", () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
