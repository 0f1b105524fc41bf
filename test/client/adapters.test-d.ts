// Type-level tests of the adapters for generated clients: each fits where those clients take a
// fetch (`typeof fetch`), a request interceptor or a JSON parser.
import { describe, expectTypeOf, it } from "vitest";
import { createLosslessFetch, createRequestSigner, createSigningFetch, losslessFetch, LosslessJsonResponse } from "../../src/client/index.js";
import { parseJsonLossless, stringifyJson } from "../../src/index.js";

describe("adapters", () => {
  it("the lossless and signing fetches can stand wherever `typeof fetch` is asked for", () => {
    expectTypeOf(losslessFetch).toExtend<typeof fetch>();
    expectTypeOf(createLosslessFetch({ fetch: createSigningFetch({ appKey: "k", appSecret: "s" }) })).toExtend<typeof fetch>();
    expectTypeOf(createLosslessFetch).parameter(0).toEqualTypeOf<{ fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response> } | undefined>();
    // A fetch of the standard shape is accepted as the one to wrap.
    createLosslessFetch({ fetch: globalThis.fetch });
  });

  it("the request signer is a Request → Promise<Request> interceptor", () => {
    expectTypeOf(createRequestSigner({ appKey: "k", appSecret: "s" })).toEqualTypeOf<(request: Request) => Promise<Request>>();
  });

  it("the JSON pair reads unknown and writes text", () => {
    expectTypeOf(parseJsonLossless).returns.toEqualTypeOf<unknown>();
    expectTypeOf(stringifyJson).returns.toEqualTypeOf<string | undefined>();
    expectTypeOf<LosslessJsonResponse>().toExtend<Response>();
  });
});
