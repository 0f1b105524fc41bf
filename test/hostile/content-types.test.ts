// A new Content-Type spelling per request must not cost a compilation. express-openapi-validator
// keys its compiled request and response validators by the request's normalised Content-Type, so
// before the kit showed it a canonical one, every fresh spelling an authenticated caller sent
// (`text/x-1`, `text/x-2`, ... on a GET, or `application/json; x=1`, ... on a POST) compiled the
// operation's validators again: some 120 ms of CPU and 0.5 MB kept per request, enough for one
// caller to stall the sandbox. Compilations are counted with a spy on Ajv's addSchema (through
// which express-openapi-validator adds every validator it compiles), after one warm-up request of
// each kind; the answers must stay exactly what they were.
import AjvCore from "ajv/dist/core.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { expectStillServed, hostileSuite } from "./support.js";

const { sb } = hostileSuite();

const order = { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }] };
const core = ((AjvCore as unknown as { default?: { prototype: object } }).default ?? AjvCore) as unknown as { prototype: { addSchema: (...args: unknown[]) => unknown } };

/** How many schemas express-openapi-validator (or anything) adds to an Ajv instance while `run` runs. */
async function compilationsDuring(run: () => Promise<void>): Promise<number> {
  const addSchema = vi.spyOn(core.prototype, "addSchema");
  try {
    await run();
    return addSchema.mock.calls.length;
  } finally {
    addSchema.mockRestore();
  }
}

afterEach(async () => {
  await expectStillServed(sb);
});

describe("fresh Content-Type spellings cost no compilation", () => {
  it("GET listStores with a new made-up type on every request: answered as without one", async () => {
    const plain = await sb.signed({ path: "/stores?merchantId=10001" });
    await sb.signed({ path: "/stores?merchantId=10001", contentType: "text/x-warm-up" });
    const compiled = await compilationsDuring(async () => {
      for (let i = 0; i < 25; i++) {
        const answer = await sb.signed({ path: "/stores?merchantId=10001", contentType: `text/x-probe-${i}; q=${i}` });
        expect(answer.status).toBe(200);
        expect(answer.json).toEqual(plain.json);
      }
    });
    expect(compiled).toBe(0);
  });

  it("POST createOrder as application/json with a new parameter on every request: each order created", async () => {
    await sb.signed({ path: "/orders", body: order, contentType: "application/json; warm=up" });
    const compiled = await compilationsDuring(async () => {
      for (let i = 0; i < 25; i++) {
        const answer = await sb.signed({ path: "/orders", body: order, contentType: i % 2 === 0 ? `application/json; x-probe=${i}` : `Application/JSON; charset=utf-8; v=${i}` });
        expect(answer.json.code, answer.text).toBe(0);
      }
    });
    expect(compiled).toBe(0);
  });

  it("POST createOrder without a body and a new type on every request: told the body is required, without compiling", async () => {
    await sb.signed({ path: "/orders", method: "POST", contentType: "text/x-warm-up" });
    const compiled = await compilationsDuring(async () => {
      for (let i = 0; i < 25; i++) {
        const answer = await sb.signed({ path: "/orders", method: "POST", contentType: `text/x-probe-${i}` });
        expect(answer.status).toBe(400);
        expect(answer.json).toEqual({ code: 100009, msg: "body is required (send JSON with Content-Type: application/json)", data: null });
      }
    });
    expect(compiled).toBe(0);
  });

  it("POST createOrder without a body as JSON with a new parameter: the same refusal as plain JSON", async () => {
    const plain = await sb.signed({ path: "/orders", method: "POST", contentType: "application/json" });
    expect(plain.json.code).toBe(100009);
    const compiled = await compilationsDuring(async () => {
      for (let i = 0; i < 25; i++) {
        const answer = await sb.signed({ path: "/orders", method: "POST", contentType: `application/json; x-probe=${i}` });
        expect({ status: answer.status, json: answer.json }).toEqual({ status: plain.status, json: plain.json });
      }
    });
    expect(compiled).toBe(0);
  });
});
