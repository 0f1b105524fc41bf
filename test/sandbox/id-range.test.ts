// The id range (large by default, safe on request) and the rounded-id hint in not-found answers.
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, idsRoundingTo } from "../../src/sandbox/index.js";
import { sandboxCommand } from "../../src/cli/sandbox.js";
import { main } from "../../src/cli/main.js";
import { BASIC, BIG_MERCHANT, startSandbox, type Answer, type TestSandbox } from "../support/sandbox.js";

const TWO_53 = 2n ** 53n;
const MAX_INT64 = 2n ** 63n - 1n;

let sb: TestSandbox | undefined;
afterEach(async () => {
  await sb?.close();
  sb = undefined;
});

/** Every id (other than itself) in [from, to] whose nearest double is `value`, by brute force. */
function bruteForce(value: bigint, from: bigint, to: bigint): bigint[] {
  const found: bigint[] = [];
  for (let id = from; id <= to; id++) if (id !== value && BigInt(Number(id)) === value) found.push(id);
  return found;
}

/** Every id (strings of digits and numbers alike) in a parsed answer, as bigint. */
function idsIn(value: unknown, key = ""): bigint[] {
  if (Array.isArray(value)) return value.flatMap((item) => idsIn(item, key));
  if (value !== null && typeof value === "object") return Object.entries(value).flatMap(([name, item]) => idsIn(item, name));
  if ((typeof value === "bigint" || typeof value === "number") && /(^id$|Id$)/.test(key)) return [BigInt(value)];
  return [];
}

function notFound(answer: Answer, code: number): string {
  expect(answer.json?.code, answer.text).toBe(code);
  return String(answer.json.msg);
}

describe("idsRoundingTo", () => {
  it("finds exactly the ids a double rounds to the given one (checked by brute force)", () => {
    const samples = [TWO_53, TWO_53 + 4n, TWO_53 + 2n, 2n ** 54n, 2n ** 54n + 8n, 2n ** 60n, 2n ** 62n + 2048n, MAX_INT64 + 1n, 10n ** 18n];
    for (const sample of samples) {
      const value = BigInt(Number(sample)); // a value a double can hold
      const spacing = 4096n;
      expect(idsRoundingTo(value), String(value)).toEqual(bruteForce(value, value - spacing, value + spacing));
    }
    expect(idsRoundingTo(TWO_53)).toEqual([TWO_53 + 1n]);
    expect(idsRoundingTo(TWO_53 + 4n)).toEqual([TWO_53 + 3n, TWO_53 + 5n]);
  });

  it("answers nothing for ids a double holds exactly or cannot produce", () => {
    expect(idsRoundingTo(10001n)).toEqual([]);
    expect(idsRoundingTo(TWO_53 - 1n)).toEqual([]);
    expect(idsRoundingTo(TWO_53 + 1n)).toEqual([]); // odd above 2^53: no double is this
  });
});

describe("--id-range large (default)", () => {
  it("names the order a rounded order id probably meant, with the guide", async () => {
    sb = await startSandbox();
    const created = await sb.signed({ path: "/orders", body: { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 }] } });
    // What a client that parses with JSON.parse holds, and sends back.
    const rounded = JSON.parse(created.text).data as number;
    const exact = BigInt(created.json.data);
    expect(exact).toBe(TWO_53 + 1n);
    expect(BigInt(rounded)).not.toBe(exact);
    const message = notFound(await sb.signed({ path: `/orders/${rounded}?merchantId=10001` }), 300001);
    expect(message).toContain(`orderId ${BigInt(rounded)}: no such order of merchant 10001.`);
    expect(message).toContain(`you probably meant ${exact}`);
    expect(message).toContain("docs/ids-and-int64.md");
    // The same through a body (payOrder takes the id in the path; cancel takes merchantId in the body).
    const cancel = notFound(await sb.signed({ path: `/orders/${rounded}/cancel`, body: { merchantId: 10001 } }), 300001);
    expect(cancel).toContain(`you probably meant ${exact}`);
  });

  it("gives no hint for an order another app owns, nor for an id that is not a rounding", async () => {
    sb = await startSandbox();
    const id = await sb.createOrder();
    const basicUser = await sb.syncUser("basic-user", BASIC);
    expect(basicUser).toBeGreaterThan(0n);
    const foreign = notFound(await sb.signed({ path: `/orders/${id - 1n}?merchantId=10001`, app: BASIC }), 300001);
    expect(foreign).not.toContain("probably meant");
    const unrelated = notFound(await sb.signed({ path: `/orders/${id + 1000n}?merchantId=10001` }), 300001);
    expect(unrelated).not.toContain("probably meant");
  });

  it("names the merchant and store a rounded fixture id probably meant", async () => {
    sb = await startSandbox();
    const merchant = notFound(await sb.signed({ path: `/merchants/${BIG_MERCHANT - 1n}` }), 200001);
    expect(merchant).toContain(`you probably meant ${BIG_MERCHANT}`);
    const store = notFound(await sb.signed({ path: `/stores/${BigInt(Number(9007199254740995n))}` }), 200003);
    expect(store).toContain("you probably meant 9007199254740995");
  });
});

describe("--id-range safe", () => {
  it("issues order ids below 2^53 that survive JSON.parse", async () => {
    sb = await startSandbox({ idRange: "safe" });
    for (let i = 0; i < 3; i++) {
      const created = await sb.signed({ path: "/orders", body: { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 1, itemName: "Tea", price: 100, quantity: 1 }] } });
      const id = BigInt(created.json.data);
      expect(id).toBeLessThan(TWO_53);
      expect(id).toBeGreaterThanOrEqual(2n ** 52n);
      expect(BigInt(JSON.parse(created.text).data as number)).toBe(id);
      const order = await sb.signed({ path: `/orders/${JSON.parse(created.text).data}?merchantId=10001` });
      expect(order.json.code).toBe(0);
    }
  });

  it("answers no id above 2^53 in any list: fixture records with larger ids are left out", async () => {
    sb = await startSandbox({ idRange: "safe" });
    const answers = await Promise.all(["/merchants?pageSize=100", "/stores?pageSize=100", "/card-templates?pageSize=50"].map((path) => sb!.signed({ path })));
    for (const answer of answers) {
      expect(answer.json.code, answer.text).toBe(0);
      const ids = idsIn(answer.json.data);
      expect(ids.length).toBeGreaterThan(0);
      for (const id of ids) expect(id).toBeLessThan(TWO_53);
    }
    expect((await sb.signed({ path: `/merchants/${BIG_MERCHANT}` })).json.code).toBe(200001);
    expect(sb.sandbox.state.app("demo-app-key")?.merchantIds).not.toContain(BIG_MERCHANT);
  });
});

describe("createSandbox({ idRange })", () => {
  it("refuses an unknown range with a clear error", () => {
    expect(() => createSandbox({ idRange: "small" as never })).toThrow('createSandbox: idRange must be "large" or "safe", got "small"');
  });
});

describe("mop sandbox --id-range", () => {
  function fakeIo() {
    const out = { stdout: "", stderr: "" };
    return { out, io: { stdout: (text: string) => void (out.stdout += text), stderr: (text: string) => void (out.stderr += text), isTTY: false, env: {} } };
  }

  it("is listed in --help", async () => {
    const { out, io } = fakeIo();
    expect(await sandboxCommand(["--help"], io)).toBe(0);
    expect(out.stdout).toContain("--id-range large|safe");
  });

  it("refuses an unknown range as a usage error", async () => {
    const { out, io } = fakeIo();
    expect(await main(["sandbox", "--id-range", "small", "--port", "0"], io)).toBe(2);
    expect(out.stderr).toContain('--id-range must be "large" or "safe", got "small"');
  });
});
