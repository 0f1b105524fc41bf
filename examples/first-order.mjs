// Syncs a customer, creates an order and starts its payment against the local sandbox, then
// prints the cashier page to open. See docs/quickstart.md.
// Settings: MOP_BASE_URL (default http://127.0.0.1:4010/open-api/v1), MOP_NOTIFY_URL (default
// http://127.0.0.1:3000/notify), MOP_APP_KEY and MOP_APP_SECRET (default the demo app).
import { ApiError, createSignedClient } from "merchant-open-platform";

const client = createSignedClient({
  baseUrl: process.env.MOP_BASE_URL ?? "http://127.0.0.1:4010/open-api/v1",
  appKey: process.env.MOP_APP_KEY ?? "demo-app-key",
  appSecret: process.env.MOP_APP_SECRET ?? "demo-app-secret",
});
const merchantId = 10001;

try {
  const { appUserId } = await client.call("syncCustomer", { body: { openUserId: "quickstart-user", nickname: "Quick Start" } });
  const orderId = await client.call("createOrder", {
    body: {
      merchantId,
      userId: appUserId,
      orderType: 1,
      items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }],
    },
  });
  console.log(`order ${orderId} created (an int64 id above 2^53: a ${typeof orderId})`);

  const payment = await client.call("payOrder", {
    params: { path: { orderId } },
    body: { merchantId, notifyUrl: process.env.MOP_NOTIFY_URL ?? "http://127.0.0.1:3000/notify", attach: "quickstart" },
  });
  console.log(`trade ${payment.tradeNo} (${payment.outTradeNo}) waiting for payment`);
  console.log(`open the cashier page and press Pay: ${payment.cashierUrl}`);

  const order = await client.call("getOrder", { params: { path: { orderId }, query: { merchantId } } });
  console.log(`order status ${order.status}, total ${order.totalAmount} fen`);
} catch (error) {
  if (error instanceof ApiError) console.error(`refused: ${error.code} ${error.errorName ?? ""} ${error.message}`);
  else throw error;
  process.exitCode = 1;
}
