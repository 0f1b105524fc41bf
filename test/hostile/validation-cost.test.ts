// Item 1 of the hostile-input review: an oversized array is refused by its count before the
// validator looks at its items, and a body with many errors gets a short answer.
import { describe, expect, it } from "vitest";
import { loadBundle } from "../../src/contract/index.js";
import { LISTED_VALIDATION_ERRORS } from "../../src/server/internal.js";
import { expectStillServed, hostileSuite, memoryProbe } from "./support.js";

const { sb } = hostileSuite({ seed: { orders: 1 } });

// The limit as the contract states it (read from the bundled spec, as the sandbox does).
const signed = loadBundle("signed") as any;
const createOrderBody = signed.components.schemas[signed.paths["/orders"].post.requestBody.content["application/json"].schema.$ref.split("/").pop()];
const MAX_ITEMS: number = createOrderBody.properties.items.maxItems;

const order = (items: unknown[]) => ({ merchantId: 10001, userId: 880000000001, orderType: 1, items });

describe("oversized and error-heavy bodies", () => {
  it.each([50_000, 100_000])("refuses %i invalid items by their count, with a short answer", async (count) => {
    const probe = memoryProbe();
    const answer = await sb.signed({ path: "/orders", body: order(Array.from({ length: count }, () => 1)) });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe(100009);
    expect(answer.json.msg).toBe(`body.items must NOT have more than ${MAX_ITEMS} items (it has ${count})`);
    expect(answer.text.length).toBeLessThan(300);
    probe.check(100);
    await expectStillServed(sb);
  });

  it(`accepts ${MAX_ITEMS} valid items (the limit itself)`, async () => {
    const item = { itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 100, quantity: 1 };
    const answer = await sb.signed({ path: "/orders", body: order(Array.from({ length: MAX_ITEMS }, () => item)) });
    expect(answer.json.code, answer.text).toBe(0);
  });

  it(`lists at most ${LISTED_VALIDATION_ERRORS} errors and counts the rest`, async () => {
    const bad = { itemType: 9, itemId: 0, itemName: "", price: -1, quantity: 0 };
    const answer = await sb.signed({ path: "/orders", body: order(Array.from({ length: MAX_ITEMS }, () => bad)) });
    expect(answer.json.code).toBe(100009);
    const parts = (answer.json.msg as string).split("; ");
    expect(parts).toHaveLength(LISTED_VALIDATION_ERRORS + 1);
    expect(parts.at(-1)).toMatch(/^and \d+ more$/);
    expect(Number(/and (\d+) more/.exec(answer.json.msg)?.[1])).toBeGreaterThan(MAX_ITEMS);
    expect(answer.text.length).toBeLessThan(4000);
    await expectStillServed(sb);
  });
});
