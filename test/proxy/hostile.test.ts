// Hostile input through the proxy: arrays far over their maxItems, piles of invalid items,
// deep JSON and duplicate keys. Each is refused (or reported) with 100009 in the envelope, never
// a 500 or a stack trace, and a valid signed request is served right after.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LISTED_PROBLEMS, startProxy, type ProxyViolation } from "../../src/proxy/index.js";
import { loadBundle } from "../../src/contract/index.js";
import { DEMO_SECRETS, rawExchange, rawRequest, sandboxBehindProxy, startRecordingUpstream } from "./helpers.js";

const item = { itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 };
const ITEMS_MAX: number = loadBundle("signed").components.schemas.CreateOrderRequest.properties.items.maxItems;
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

interface Setup {
  proxyUrl: string;
  violations: ProxyViolation[];
  /** Requests that reached the upstream so far. */
  arrived(): number;
  close(): Promise<void>;
}

// Refusing: the real sandbox behind. Passing on: a recording upstream, because the hostile
// bodies are then forwarded on purpose and what matters is that they arrive byte for byte.
async function refusingSetup(): Promise<Setup> {
  const env = await sandboxBehindProxy({ secrets: DEMO_SECRETS, sign: true, failOnViolation: true });
  return { proxyUrl: env.proxy.url, violations: env.violations, arrived: () => env.sandbox.logs.requests.length, close: env.close };
}
let lastBody: Buffer | undefined;
async function passingSetup(): Promise<Setup> {
  const upstream = await startRecordingUpstream();
  const violations: ProxyViolation[] = [];
  const proxy = await startProxy({ target: upstream.url, secrets: DEMO_SECRETS, sign: true, onViolation: (v) => violations.push(v) });
  return {
    proxyUrl: proxy.url,
    violations,
    arrived: () => {
      lastBody = upstream.arrivals.at(-1)?.body;
      return upstream.arrivals.length;
    },
    close: async () => {
      await proxy.close();
      await upstream.close();
    },
  };
}

describe.each([
  { name: "--sign --fail-on-violation, the sandbox behind", failOnViolation: true, start: refusingSetup },
  { name: "--sign, passing violations on", failOnViolation: false, start: passingSetup },
])("through $name", ({ failOnViolation, start }) => {
  let env: Setup;
  beforeAll(async () => {
    env = await start();
  });
  afterAll(() => env.close());

  async function post(path: string, body: string) {
    const seen = env.violations.length;
    const before = env.arrived();
    const response = await fetch(`${env.proxyUrl}/open-api/v1${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body });
    const text = await response.text();
    expect(text).not.toMatch(/\n\s+at |sandbox bug/);
    const forwarded = env.arrived() > before;
    if (forwarded) expect(lastBody === undefined || failOnViolation || lastBody.toString() === body).toBe(true);
    if (failOnViolation) {
      expect(forwarded).toBe(false);
      expect(response.status).toBe(400);
      expect((JSON.parse(text) as { code: number }).code).toBe(100009);
    } else {
      expect(forwarded).toBe(true);
    }
    return { text, violations: env.violations.slice(seen).filter((v) => v.direction === "request") };
  }

  async function stillServes() {
    const answer = await fetch(`${env.proxyUrl}/open-api/v1/stores?merchantId=10001`);
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { code: number }).code).toBe(0);
  }

  it(`refuses 50,000 createOrder items by counting them against the spec's maxItems (${ITEMS_MAX})`, async () => {
    const body = JSON.stringify({ merchantId: 10001, userId: 880000000001, orderType: 1, items: Array.from({ length: 50_000 }, () => ({ itemType: 9 })) });
    const answer = await post("/orders", body);
    // Counted, not validated item by item: the one problem names the array and the limit.
    expect(answer.violations.map((v) => v.problems)).toEqual([[`body.items must NOT have more than ${ITEMS_MAX} items (it has 50000)`]]);
    await stillServes();
  });

  it(`lists at most ${MAX_LISTED_PROBLEMS} problems of an array within its limit, and counts the rest`, async () => {
    const body = JSON.stringify({ merchantId: 10001, userId: 880000000001, orderType: 1, items: Array.from({ length: ITEMS_MAX }, () => ({ itemType: 9 })) });
    const answer = await post("/orders", body);
    const problems = answer.violations[0]!.problems;
    expect(problems).toHaveLength(MAX_LISTED_PROBLEMS + 1);
    expect(problems.at(-1)).toMatch(/^and \d+ more$/);
    if (failOnViolation) expect(answer.text).toMatch(/; and \d+ more","data":null}$/);
    await stillServes();
  });

  it("refuses JSON nested 5,500 levels deep with 100009", async () => {
    const answer = await post("/customers/sync", deep(5_500));
    expect(answer.violations[0]!.problems.join()).toMatch(/not acceptable JSON: .*(deep|depth|nest)/i);
    await stillServes();
  });

  it("refuses duplicate keys, which two readers would read differently", async () => {
    const body = '{"merchantId":10001,"outTradeNo":"DUP-1","totalAmount":1,"totalAmount":999,"subject":"Tea","notifyUrl":"https://127.0.0.1:9/cb"}';
    const answer = await post("/payment/cashier/create", body);
    expect(answer.violations[0]!.problems.join()).toMatch(/not acceptable JSON: .*totalAmount/);
    await stillServes();
  });
});

describe("hostile answers", () => {
  it("reports a deep or duplicate-key answer as a violation instead of failing", async () => {
    const upstream = await startRecordingUpstream();
    const violations: string[][] = [];
    const proxy = await startProxy({ target: upstream.url, onViolation: (v) => violations.push(v.problems) });
    try {
      for (const body of [deep(5_000), '{"code":0,"code":100009,"msg":"x","data":null}']) {
        upstream.answer((_req, res) => res.writeHead(200, { "Content-Type": "application/json" }).end(body));
        const answer = await rawExchange(proxy.url, rawRequest("GET", "/open-api/v1/stores/20001"));
        expect(answer.status).toBe(200);
        expect(answer.body.toString()).toBe(body);
        expect(violations.at(-1)!.join()).toMatch(/not a JSON envelope/);
      }
    } finally {
      await proxy.close();
      await upstream.close();
    }
  });
});
