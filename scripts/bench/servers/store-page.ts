// The listStores page the constant-answer servers send (the stub, the kit with a constant
// handler and its bare-Express twin): typed by the generated answer, so it stays valid.
import type { HandlerOutput } from "../../../src/server/index.js";

export const STORE_PAGE: HandlerOutput<"listStores"> = {
  list: [
    { id: 20001, merchantId: 10001, name: "Jade Garden People's Square", address: "88 Nanjing Road, Huangpu, Shanghai", phone: "021-63210001", latitude: 31.2345, longitude: 121.4737, status: 0 },
    { id: 20002, merchantId: 10001, name: "Jade Garden Xujiahui", address: "1 Hongqiao Road, Xuhui, Shanghai", phone: "021-64260002", latitude: 31.1955, longitude: 121.4368, status: 1 },
  ],
  total: 2,
  pageNo: 1,
  pageSize: 10,
};
