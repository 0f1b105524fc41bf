// A server that answers every request at once with the same listStores success envelope, for
// measuring what the client itself costs (the server's share of a call is close to nothing).
// Prints "listening http://127.0.0.1:PORT" once it listens.
import { createServer } from "node:http";

const body = JSON.stringify({
  code: 0,
  msg: "success",
  data: {
    list: [
      { id: 20001, merchantId: 10001, name: "Jade Garden People's Square", address: "88 Nanjing Road, Huangpu, Shanghai", phone: "021-63210001", latitude: 31.2345, longitude: 121.4737, status: 0 },
      { id: 20002, merchantId: 10001, name: "Jade Garden Xujiahui", address: "1 Hongqiao Road, Xuhui, Shanghai", phone: "021-64260002", latitude: 31.1955, longitude: 121.4368, status: 1 },
    ],
    total: 2,
    pageNo: 1,
    pageSize: 10,
  },
});
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
