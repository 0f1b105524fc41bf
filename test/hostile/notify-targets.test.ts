// Item 8 of the hostile-input review: callbacks never go to link-local, private or (without a
// flag) loopback addresses, whether the notifyUrl names the address or a name resolves to it at
// delivery time. DNS is injected (resolveHost) and deliveries are recorded by an injected fetch,
// so nothing leaves the machine.
import { describe, expect, it } from "vitest";
import { addressKind } from "../../src/sandbox/notify-target.js";
import { eventually, type TestSandbox } from "../support/sandbox.js";
import { expectStillServed, hostileSuite, startHostileSandbox } from "./support.js";

const DNS: Record<string, string[]> = {
  "metadata.example": ["169.254.169.254"],
  "mixed.example": ["203.0.113.10", "10.0.0.5"],
  "mapped.example": ["::ffff:127.0.0.1"],
  "public.example": ["203.0.113.10", "2001:db8::10"],
};

function fakes() {
  const delivered: string[] = [];
  return {
    delivered,
    resolveHost: async (host: string) => {
      const addresses = DNS[host];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
      return addresses.map((address) => ({ address }));
    },
    fetch: (async (input: string | URL | Request) => {
      delivered.push(String(input));
      return new Response("success", { status: 200 });
    }) as typeof fetch,
  };
}

const fake = fakes();
const { sb } = hostileSuite({ sandbox: { allowPrivateNotify: false, resolveHost: fake.resolveHost, fetch: fake.fetch, callbackSchedule: [] } });

async function createTrade(sandbox: TestSandbox, notifyUrl: string) {
  return sandbox.signed({ path: "/payment/cashier/create", body: { merchantId: 10001, outTradeNo: `N-${Math.random().toString(36).slice(2, 12)}`, totalAmount: 100, subject: "Tea", notifyUrl } });
}

async function payAndWaitForAttempt(sandbox: TestSandbox, tradeNo: string) {
  expect((await sandbox.control("POST", `/trades/${tradeNo}/pay`)).json.code).toBe(0);
  return eventually(async () => {
    const log = (await sandbox.control("GET", `/callbacks?tradeNo=${tradeNo}`)).json.data.list[0];
    return log?.attempts?.length > 0 ? log : undefined;
  });
}

describe("notifyUrl targets", () => {
  it.each([
    ["https://169.254.169.254/latest/meta-data", "link-local"],
    ["https://10.1.2.3/cb", "private"],
    ["https://192.168.1.1/cb", "private"],
    ["https://172.20.0.1/cb", "private"],
    ["https://100.64.0.1/cb", "private"],
    ["https://[fe80::1]/cb", "link-local"],
    ["https://[fd00::1]/cb", "private"],
    ["https://[::ffff:169.254.169.254]/cb", "link-local"],
    ["https://0.0.0.0/cb", "unspecified"],
    ["https://127.0.0.1:9/cb", "loopback"],
    ["https://[::1]/cb", "loopback"],
    ["https://localhost/cb", "loopback"],
    ["https://api.localhost/cb", "loopback"],
  ])("refuses %s (%s) at creation with 100009", async (notifyUrl, kind) => {
    const answer = await createTrade(sb, notifyUrl);
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toContain(`is a ${kind} address`);
    expect(answer.json.msg).toMatch(/^body\.notifyUrl host /);
  });

  it.each([
    ["metadata.example", "169.254.169.254"],
    ["mixed.example", "10.0.0.5"],
    ["mapped.example", "::ffff:127.0.0.1"],
  ])("does not deliver to %s, which resolves to %s", async (host, address) => {
    const created = await createTrade(sb, `https://${host}/cb`);
    expect(created.json.code, created.text).toBe(0);
    const log = await payAndWaitForAttempt(sb, created.json.data.tradeNo);
    expect(log.attempts[0].error).toContain(`refused: notifyUrl host ${host} resolves to ${address}`);
    expect(log.attempts[0].httpStatus).toBeNull();
    expect(fake.delivered.filter((url) => url.includes(host))).toEqual([]);
    await expectStillServed(sb);
  });

  it("delivers to a name that resolves to public addresses only", async () => {
    const created = await createTrade(sb, "https://public.example/cb");
    const log = await payAndWaitForAttempt(sb, created.json.data.tradeNo);
    expect(log.attempts[0].acknowledged).toBe(true);
    expect(fake.delivered).toContain("https://public.example/cb");
  });

  it("allows private and loopback targets with allowPrivateNotify", async () => {
    const open = fakes();
    const wide = await startHostileSandbox({ allowPrivateNotify: true, resolveHost: open.resolveHost, fetch: open.fetch, callbackSchedule: [] });
    try {
      for (const notifyUrl of ["https://10.1.2.3/cb", "https://metadata.example/cb", "https://127.0.0.1:9/cb"]) {
        const created = await createTrade(wide, notifyUrl);
        expect(created.json.code, created.text).toBe(0);
        const log = await payAndWaitForAttempt(wide, created.json.data.tradeNo);
        expect(log.attempts[0].acknowledged, notifyUrl).toBe(true);
      }
    } finally {
      await wide.close();
    }
  });

  it("allows loopback, and only loopback, with allowInsecureNotify", async () => {
    const local = await startHostileSandbox({ allowPrivateNotify: false, allowInsecureNotify: true, fetch: fakes().fetch });
    try {
      expect((await createTrade(local, "http://127.0.0.1:9/cb")).json.code).toBe(0);
      expect((await createTrade(local, "https://localhost/cb")).json.code).toBe(0);
      expect((await createTrade(local, "https://10.1.2.3/cb")).json.code).toBe(100009);
    } finally {
      await local.close();
    }
  });

  it.each([
    ["8.8.8.8", "public"],
    ["203.0.113.10", "public"],
    ["2001:4860:4860::8888", "public"],
    ["169.254.169.254", "link-local"],
    ["255.255.255.255", "reserved"],
    ["224.0.0.1", "multicast"],
    ["[::1]", "loopback"],
  ])("classifies %s as %s", (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });
});
