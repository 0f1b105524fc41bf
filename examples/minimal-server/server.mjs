// A minimal platform server on the server kit: merchants, stores and customer sync over a tiny
// in-memory data set. The kit checks the signature, validates requests and answers against
// the spec, writes every envelope and keeps int64 ids exact; the handlers only answer.
// Run: node server.mjs (PORT, default 4020; MOP_APP_KEY / MOP_APP_SECRET, default the demo app).
// Then: npx mop check --base-url http://127.0.0.1:4020 --app-key demo-app-key --app-secret
// demo-app-secret --include signature --include responses.listStores (see docs/server.md).
import express from "express";
import { createSignedRouter, signedError } from "merchant-open-platform/server";

const appKey = process.env.MOP_APP_KEY ?? "demo-app-key";
const apps = new Map([[appKey, { appSecrets: [process.env.MOP_APP_SECRET ?? "demo-app-secret"], merchantIds: [10001n], permissions: ["merchant-module"] }]]);

// A merchant id above 2^53 would work the same way: ids are bigint here and exact on the wire.
const merchants = [
  { id: 10001n, merchantName: "Tea House", merchantType: 1, contactName: "Li Lei", contactPhone: "138****0001", province: "Zhejiang", city: "Hangzhou", district: "Xihu", address: "1 Lake Road", businessHours: "09:00-21:00", logoUrl: "https://example.com/logo.png", description: "Teas and cakes", accountStatus: 0, cooperateTime: "2024-01-01T00:00:00+08:00" },
  { id: 10002n, merchantName: "Noodle Bar", merchantType: 1, contactName: "Han Mei", contactPhone: "139****0002", province: "Jiangsu", city: "Suzhou", district: "Gusu", address: "2 Canal Street", businessHours: "10:00-22:00", logoUrl: "https://example.com/noodle.png", description: "Hand-pulled noodles", accountStatus: 0, cooperateTime: "2024-02-01T00:00:00+08:00" },
];
const stores = [
  { id: 20001n, merchantId: 10001n, name: "Tea House West Lake", address: "1 Lake Road", phone: "0571-88880001", latitude: 30.25, longitude: 120.15, status: 0, province: "Zhejiang", city: "Hangzhou", district: "Xihu", businessHours: "09:00-21:00", description: "By the lake", createTime: "2024-01-02T10:00:00+08:00" },
  { id: 20002n, merchantId: 10001n, name: "Tea House Station", address: "9 Station Square", phone: "0571-88880002", latitude: 30.29, longitude: 120.21, status: 1, province: "Zhejiang", city: "Hangzhou", district: "Shangcheng", businessHours: "07:00-19:00", description: "Closed for works", createTime: "2024-03-02T10:00:00+08:00" },
  { id: 20003n, merchantId: 10002n, name: "Noodle Bar Canal", address: "2 Canal Street", phone: "0512-66660001", latitude: 31.3, longitude: 120.62, status: 0, province: "Jiangsu", city: "Suzhou", district: "Gusu", businessHours: "10:00-22:00", description: "Noodles", createTime: "2024-02-03T10:00:00+08:00" },
];
const customers = new Map(); // `${appKey}:${openUserId}` → appUserId
let nextAppUserId = 9_007_199_254_740_993n; // above 2^53, to show exact ids

const page = (list, pageNo, pageSize) => list.slice((pageNo - 1) * pageSize, pageNo * pageSize);
const storeView = ({ province, city, district, businessHours, description, createTime, ...store }) => store;

/** 200001 when the merchant does not exist, 100008 when the app may not see it (that order: existence first). */
function requireMerchant(app, merchantId) {
  const merchant = merchants.find((m) => m.id === merchantId);
  if (!merchant) throw signedError("MERCHANT_NOT_FOUND", `merchantId ${merchantId}: the merchant does not exist.`);
  if (!app.merchantIds.includes(merchantId)) throw signedError("MERCHANT_DATA_FORBIDDEN", `merchantId ${merchantId}: the merchant is not authorised for the app.`);
  return merchant;
}

function requireStore(app, storeId) {
  const store = stores.find((s) => s.id === storeId);
  if (!store) throw signedError("STORE_NOT_FOUND", `storeId ${storeId}: the store does not exist.`);
  requireMerchant(app, store.merchantId);
  return store;
}

function requireMerchantModule(app) {
  if (!app.permissions.includes("merchant-module")) throw signedError("MERCHANT_MODULE_FORBIDDEN", "The app has no permission on the merchant module.");
}

const handlers = {
  syncCustomer: ({ appKey, body }) => {
    const key = `${appKey}:${body.openUserId}`;
    const known = customers.get(key);
    if (known !== undefined) return { appUserId: known, openUserId: body.openUserId, created: false };
    customers.set(key, nextAppUserId);
    return { appUserId: nextAppUserId++, openUserId: body.openUserId, created: true };
  },
  listMerchants: ({ appKey, query }) => {
    const app = apps.get(appKey);
    requireMerchantModule(app);
    const matching = merchants.filter((m) => app.merchantIds.includes(m.id) && (query.name === undefined || m.merchantName.toLowerCase().includes(query.name.toLowerCase())) && (query.status === undefined || m.accountStatus === query.status));
    return {
      list: page(matching, query.pageNo, query.pageSize).map((m) => ({ id: m.id, merchantName: m.merchantName, contactName: m.contactName, contactPhone: m.contactPhone, address: m.address, status: m.accountStatus === 2 ? 1 : 0, cooperateTime: m.cooperateTime })),
      total: matching.length,
      page: query.pageNo,
      size: query.pageSize,
    };
  },
  getMerchant: ({ appKey, path }) => {
    const app = apps.get(appKey);
    requireMerchantModule(app);
    const { accountStatus, cooperateTime, ...merchant } = requireMerchant(app, path.merchantId);
    return { ...merchant, storeCount: stores.filter((s) => s.merchantId === merchant.id).length };
  },
  listStores: ({ appKey, query }) => {
    const app = apps.get(appKey);
    const merchantIds = query.merchantId === undefined ? app.merchantIds : [requireMerchant(app, query.merchantId).id];
    const matching = stores.filter((s) => merchantIds.includes(s.merchantId) && (query.name === undefined || s.name.toLowerCase().includes(query.name.toLowerCase())));
    return { list: page(matching, query.pageNo, query.pageSize).map(storeView), total: matching.length, pageNo: query.pageNo, pageSize: query.pageSize };
  },
  getStore: ({ appKey, path }) => requireStore(apps.get(appKey), path.storeId),
  getStoreBusinessHours: ({ appKey, path }) => {
    const store = requireStore(apps.get(appKey), path.storeId);
    const [open, close] = store.businessHours.split("-");
    const weekly = [1, 2, 3, 4, 5, 6, 7].map((dayOfWeek) => ({ dayOfWeek, periods: [{ open, close }] }));
    const now = new Date(Date.now() + 8 * 3600_000).toISOString().slice(11, 16); // Asia/Shanghai has no daylight saving
    return { storeId: store.id, timezone: "Asia/Shanghai", weekly, openNow: store.status === 0 && open <= now && now < close };
  },
};

const app = express();
app.disable("x-powered-by");
// The operations left out answer 100015, as paths this server does not serve.
app.use("/open-api", createSignedRouter({ handlers, apps: (key) => apps.get(key), partial: true }));
app.use((_req, res) => res.status(404).json({ code: 100015, msg: "No operation exists at this path.", data: null }));

const server = app.listen(Number(process.env.PORT ?? 4020), process.env.HOST ?? "127.0.0.1", () => {
  console.log(`minimal server listening on http://${process.env.HOST ?? "127.0.0.1"}:${server.address().port}`);
});
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => server.close(() => process.exit(0)));
