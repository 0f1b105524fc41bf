// The sandbox's fast paths (docs/performance.md) give exactly what the reference paths give:
// JSON through the engine's parser and writer vs the lossless ones, the Number copy for the
// validator, the sandbox's nonce store vs the signing module's, the route lookup with regular
// expressions compiled once vs express-openapi-validator's own, and the schema preprocessing
// with references resolved up front vs by EOV itself; and the whole assembly answers every
// request as EOV's public middleware, mounted the documented way, does.
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import { applyOpenApiMetadata } from "express-openapi-validator/dist/middlewares/openapi.metadata.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJsonLossless, stringifyJson, withBigIntsAsNumbers } from "../../src/json/index.js";
import { MAX_JSON_DEPTH, stringifyExactJson } from "../../src/json/index.js";
import { findStructureProblem } from "../../src/json/structure.js";
import { isInteger, parse as losslessParse } from "lossless-json";
import { loadBundle } from "../../src/contract/index.js";
import { requestState } from "../../src/server/state.js";
import { createSpecValidator, metadataStep, prepareSpec, validatorOptions } from "../../src/server/eov/index.js";
import type { ResponseValidationFailure } from "../../src/server/state.js";

// The public middleware's verdict on an answer (its onError), by response; the assembly's is
// asked of the request state's answerCheck, as the kit's answer writer asks it.
const publicVerdicts = new WeakMap<object, ResponseValidationFailure>();
const publicOptions = (spec: Parameters<typeof validatorOptions>[0]) => ({
  ...validatorOptions(spec),
  validateResponses: { allErrors: true, onError: (error: ResponseValidationFailure, _body: unknown, req: Request) => void (req.res && publicVerdicts.set(req.res, error)) },
});
const verdictOn = (res: Response, body: unknown): ResponseValidationFailure | undefined =>
  publicVerdicts.get(res) ?? (res.statusCode < 500 && !res.headersSent ? requestState(res).answerCheck?.(res, res.statusCode, body) : undefined);

const outcome = (fn: () => unknown): { ok: true; value: unknown } | { ok: false; error: string } => {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` };
  }
};

const bigints = fc.oneof(fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }), fc.bigInt({ min: 2n ** 53n - 5n, max: 2n ** 53n + 5n }), fc.bigInt({ min: -100n, max: 100n }));
const tricky = fc.constantFrom("\u0000", "\u0000x:1", "\\u0000", '"', "\u2028", "😀", "__proto__", "9007199254740993", "1e400", "-0");
const leaf = fc.oneof(fc.integer(), fc.double(), fc.string(), tricky, fc.boolean(), fc.constant(null), bigints, fc.constant(undefined));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, fc.array(tie("node"), { maxLength: 5 }), fc.dictionary(fc.oneof(fc.string(), tricky), tie("node"), { maxKeys: 5 })),
})).node;

describe("JSON fast paths", () => {
  it("parseJsonLossless's fast path (JSON.parse) reads what its exact path (lossless-json) reads, and refuses what it refuses", () => {
    const texts = fc.oneof(
      fc.jsonValue().map((v) => JSON.stringify(v)),
      value.map((v) => stringifyJson(v) ?? "null"),
      // Near-JSON: cut, doubled or edited text.
      fc.tuple(fc.jsonValue().map((v) => JSON.stringify(v)), fc.nat(), fc.constantFrom("", ",", "}", "]", "0", "-", " ", "\u0000", "'", "NaN", "1e", "01")).map(([text, at, insert]) => {
        const i = text.length === 0 ? 0 : at % text.length;
        return text.slice(0, i) + insert + text.slice(i + (at % 3 === 0 ? 1 : 0));
      }),
      fc.constantFrom('{"a":9007199254740993}', '{"a":1e18}', '{"__proto__":{"x":1}}', '{"a":1,"a":2}', " [1, -0, 0.5e-3] ", "\ufeff{}", '"\\ud800"', '{"a":"\t"}'),
    );
    fc.assert(
      fc.property(texts, (text) => {
        const fast = outcome(() => parseJsonLossless(text));
        // The exact path alone, as parseJsonLossless takes it for text with a 16-digit run.
        const reference = outcome(() => {
          const problem = findStructureProblem(text, MAX_JSON_DEPTH);
          if (problem) throw problem;
          return losslessParse(text, null, { parseNumber: (token: string) => (isInteger(token) && !Number.isSafeInteger(Number(token)) ? BigInt(token) : Number(token)) });
        });
        expect(fast.ok, text).toBe(reference.ok);
        if (fast.ok && reference.ok) expect(isDeepStrictEqual(fast.value, reference.value), text).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("stringifyExactJson writes what the lossless writer writes", () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(stringifyExactJson(v)).toBe(stringifyJson(v) ?? "null");
      }),
      { numRuns: 3000 },
    );
    expect(stringifyExactJson({ a: new Date(0), b: [1n, undefined, () => 1] })).toBe(stringifyJson({ a: new Date(0), b: [1n, undefined, () => 1] }));
  });
});

describe("express-openapi-validator, assembled from its parts", () => {
  const paths = [
    "/open-api/v1/stores",
    "/open-api/stores",
    "/open-api/v1/stores/20001",
    "/open-api/v1/stores/nearby",
    "/open-api/v1/stores/20001/business-hours",
    "/open-api/v1/orders/9007199254740993/pay",
    "/open-api/v1/orders/%E4%B8%AD",
    "/open-api/v1/orders/%E4%B8",
    "/open-api/v1/ORDERS",
    "/open-api/v1/nothing",
    "/open-api/v1/",
    "/open-api/v2/stores",
    "/open-api/v1/stores/",
    "/v1/merchants",
    "/sandbox/trades/1/pay",
    "/sandbox/clock",
    "/elsewhere",
  ];

  it.each(["signed", "keyed", "sandbox-control"] as const)("the cached route lookup matches EOV's own for the %s spec", async (name) => {
    const { context, responseApiDoc } = await prepareSpec(loadBundle(name));
    const ours = metadataStep(context, responseApiDoc);
    const theirs = applyOpenApiMetadata(context, responseApiDoc as never);
    const app = express();
    const mount = name === "signed" ? "/open-api" : name === "keyed" ? "/v1" : "/sandbox";
    for (const path of paths) {
      for (const method of ["GET", "POST", "DELETE", "HEAD"]) {
        for (const query of ["", "?merchantId=1"]) {
          const request = () =>
            ({ method, originalUrl: `${path}${query}`, url: `${path.slice(mount.length) || "/"}${query}`, path: path.slice(mount.length) || "/", baseUrl: mount, app, params: {} }) as unknown as Request & { openapi?: unknown };
          const a = request();
          const b = request();
          const mine = outcome(() => ours(a));
          // EOV's middleware throws (its wrapper turns that into next(error)).
          const theirsOutcome = outcome(() =>
            theirs(b as never, {} as never, (error?: unknown) => {
              if (error) throw error;
            }),
          );
          const describeError = (o: { ok: boolean; error?: string }) => (o.ok ? "ok" : o.error);
          expect(describeError(mine), `${method} ${path}${query}`).toBe(describeError(theirsOutcome));
          if (!mine.ok) continue;
          expect(a.openapi, `${method} ${path}${query}`).toEqual(b.openapi);
          expect(a.params).toEqual(b.params);
        }
      }
    }
  });

  it.each(["signed", "keyed", "sandbox-control"] as const)("bundling the bundled %s spec again changes nothing (so the sandbox skips it)", async (name) => {
    // $RefParser exactly as EOV resolves it.
    const fromValidator = createRequire(createRequire(import.meta.url).resolve("express-openapi-validator"));
    const $RefParser = fromValidator("@apidevtools/json-schema-ref-parser") as { bundle(document: object): Promise<unknown> };
    const document = structuredClone(loadBundle(name));
    const bundled = await $RefParser.bundle(document);
    expect(bundled).toBe(document);
    expect(isDeepStrictEqual(bundled, loadBundle(name))).toBe(true);
  });

  it.each(["signed", "keyed", "sandbox-control"] as const)("resolving references up front preprocesses the %s spec exactly as EOV does", async (name) => {
    const withFunctionsNamed = (value: unknown) => JSON.parse(JSON.stringify(value, (_key, item: unknown) => (typeof item === "function" ? `function ${item.name}` : item)));
    const fast = await prepareSpec(loadBundle(name));
    const reference = await prepareSpec(loadBundle(name), { prefill: false });
    expect(withFunctionsNamed(fast.context.apiDoc)).toEqual(withFunctionsNamed(reference.context.apiDoc));
    expect(withFunctionsNamed(fast.responseApiDoc)).toEqual(withFunctionsNamed(reference.responseApiDoc));
    expect(fast.context.routes).toEqual(reference.context.routes);
  });
});

describe("the assembly answers as express-openapi-validator's public middleware does", () => {
  // Two apps alike but for the validator: the body parsed by express.json(), then the
  // validator, then a handler echoing what the validator left on the request (operation,
  // coerced query, path parameters, body with defaults); every error as its status, message,
  // errors and headers. res.json is replaced before the validator wraps it, so the echo also
  // carries the response validator's verdict on it (an echo is no valid answer: both must say
  // why in the same words).
  const servers: { close(): void }[] = [];
  const origins: Record<"assembly" | "public", string> = { assembly: "", public: "" };

  function app(validator: RequestHandler | RequestHandler[]): express.Express {
    const built = express();
    built.use(express.json());
    built.use((_req: Request, res: Response, next: NextFunction) => {
      res.json = function (this: Response, body: unknown) {
        const invalid = verdictOn(this, body);
        this.setHeader("Content-Type", "application/json");
        this.end(JSON.stringify({ body, responseValidation: invalid?.message ?? "passed" }));
        return this;
      };
      next();
    });
    built.use(validator);
    built.use((req: Request & { openapi?: { openApiRoute?: string; pathParams?: unknown; schema?: { operationId?: string } } }, res: Response) => {
      const { openapi } = req;
      res.json({ operationId: openapi?.schema?.operationId, route: openapi?.openApiRoute, pathParams: openapi?.pathParams, query: req.query, body: req.body as unknown });
    });
    built.use((error: { status?: number; message?: string; errors?: unknown; headers?: Record<string, string> }, _req: Request, res: Response, _next: NextFunction) => {
      res.status(error.status ?? 500);
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ status: error.status, message: error.message, errors: error.errors, headers: error.headers }));
    });
    return built;
  }

  function listen(handler: express.Express): Promise<string> {
    return new Promise((resolve) => {
      const server = handler.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
      servers.push(server);
    });
  }

  beforeAll(async () => {
    const spec = loadBundle("signed");
    origins.assembly = await listen(app(createSpecValidator(spec).handle));
    origins.public = await listen(app(OpenApiValidator.middleware(publicOptions(spec) as never)));
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  const order = { merchantId: 10001, userId: 880000000001, orderType: 1, items: [{ itemType: 1, itemId: 31001, itemName: "Oolong milk tea", price: 1800, quantity: 2 }] };
  const cases: [string, { method: string; path: string; body?: string; contentType?: string }][] = [
    ["a valid listStores", { method: "GET", path: "/open-api/v1/stores?merchantId=10001&pageNo=1&pageSize=10" }],
    ["listStores with its defaults", { method: "GET", path: "/open-api/v1/stores" }],
    ["the unversioned base path", { method: "GET", path: "/open-api/stores?merchantId=10001" }],
    ["a trailing slash", { method: "GET", path: "/open-api/v1/stores/" }],
    ["a query value over its maximum", { method: "GET", path: "/open-api/v1/stores?merchantId=10001&pageSize=1000" }],
    ["a query value of the wrong type", { method: "GET", path: "/open-api/v1/stores?pageNo=first" }],
    ["an unknown query parameter", { method: "GET", path: "/open-api/v1/stores?bogus=1" }],
    ["a path parameter", { method: "GET", path: "/open-api/v1/stores/20001" }],
    ["a path parameter of the wrong type", { method: "GET", path: "/open-api/v1/stores/abc" }],
    ["a static route before a templated one", { method: "GET", path: "/open-api/v1/stores/nearby?latitude=31.2&longitude=121.4" }],
    ["a method the path does not take", { method: "DELETE", path: "/open-api/v1/stores" }],
    ["an unknown path", { method: "GET", path: "/open-api/v1/nothing" }],
    ["a malformed percent-encoding", { method: "GET", path: "/open-api/v1/orders/%E4%B8" }],
    ["a path outside the spec's servers", { method: "GET", path: "/elsewhere" }],
    ["a valid createOrder", { method: "POST", path: "/open-api/v1/orders", body: JSON.stringify(order) }],
    ["a body missing required fields, with wrong types", { method: "POST", path: "/open-api/v1/orders", body: JSON.stringify({ merchantId: "x", items: [{ price: -1 }] }) }],
    ["an unknown body property", { method: "POST", path: "/open-api/v1/orders", body: JSON.stringify({ ...order, surprise: true }) }],
    ["no body at all", { method: "POST", path: "/open-api/v1/orders" }],
    ["a body that is not JSON", { method: "POST", path: "/open-api/v1/orders", body: "merchantId=1", contentType: "text/plain" }],
    // The request step's own path (plain query strings) and what it leaves to EOV's whole path.
    ["an empty query value", { method: "GET", path: "/open-api/v1/stores?merchantId=&pageNo=1" }],
    ["a query parameter given twice", { method: "GET", path: "/open-api/v1/stores?pageNo=1&pageNo=2" }],
    ["a percent-encoded query value", { method: "GET", path: "/open-api/v1/stores?name=Oolong%20House&pageNo=%31" }],
    ["a value with a comma and a tilde", { method: "GET", path: "/open-api/v1/stores?name=a,b~c" }],
    ["a reserved character in a value", { method: "GET", path: "/open-api/v1/stores?name=a:b" }],
    ["a reserved character in an unknown parameter", { method: "GET", path: "/open-api/v1/stores?x=a@b" }],
    ["a plus sign in a number", { method: "GET", path: "/open-api/v1/stores?pageNo=+1" }],
    ["a quote in a value", { method: "GET", path: "/open-api/v1/stores?name=O'Neil" }],
    ["bracket notation", { method: "GET", path: "/open-api/v1/stores?merchantId[a]=1" }],
    ["an equals sign inside a value", { method: "GET", path: "/open-api/v1/stores?name=a=b" }],
    ["a key without a value", { method: "GET", path: "/open-api/v1/stores?merchantId" }],
    ["a string query value over its length", { method: "GET", path: `/open-api/v1/stores?name=${"n".repeat(65)}` }],
    ["a query string on a path with a percent-encoded id", { method: "GET", path: "/open-api/v1/stores/%32%30001?bogus=1" }],
    ["a GET carrying a Content-Type", { method: "GET", path: "/open-api/v1/stores?merchantId=10001", contentType: "text/plain" }],
    ["createOrder with charset=utf-8", { method: "POST", path: "/open-api/v1/orders", body: JSON.stringify(order), contentType: "application/json; charset=utf-8" }],
    ["createOrder with charset=UTF-8 and an unknown query parameter", { method: "POST", path: "/open-api/v1/orders?x=1", body: JSON.stringify(order), contentType: "application/json; charset=UTF-8" }],
    ["createOrder as another JSON media type", { method: "POST", path: "/open-api/v1/orders", body: JSON.stringify(order), contentType: "application/merge-patch+json" }],
  ];

  it.each(cases)("%s", async (_name, { method, path, body, contentType }) => {
    const answers = await Promise.all(
      (["assembly", "public"] as const).map(async (variant) => {
        const headers: Record<string, string> = body === undefined ? {} : { "content-type": contentType ?? "application/json" };
        if (body === undefined && contentType !== undefined) headers["content-type"] = contentType;
        const response = await fetch(`${origins[variant]}${path}`, { method, body, headers });
        return { status: response.status, allow: response.headers.get("allow"), body: (await response.json()) as unknown };
      }),
    );
    expect(answers[0]).toEqual(answers[1]);
  });
});

describe("response validation gives express-openapi-validator's verdicts", () => {
  // The handler answers the status and body the request asks for (X-Answer), through res.json;
  // the echo in front of the validator writes what the validator let through and its verdict.
  // The kit's response step picks the validator once per status and accepted types and runs it
  // alone; EOV's public middleware runs its whole _validate on every answer.
  const servers: { close(): void }[] = [];
  const origins: Record<"assembly" | "public", string> = { assembly: "", public: "" };

  function app(validator: RequestHandler | RequestHandler[]): express.Express {
    const built = express();
    built.use((_req: Request, res: Response, next: NextFunction) => {
      res.json = function (this: Response, body: unknown) {
        // EOV's response munger answers a null body 204 (the kit never answers one).
        if (body === null) return this.status(204).end();
        const invalid = verdictOn(this, body);
        this.setHeader("Content-Type", "application/json");
        this.end(JSON.stringify({ status: this.statusCode, body, responseValidation: invalid?.message ?? "passed", errors: invalid?.errors }));
        return this;
      };
      next();
    });
    built.use(validator);
    built.use((req: Request, res: Response) => {
      const { status, body } = JSON.parse(req.headers["x-answer"] as string) as { status: number; body: unknown };
      res.status(status).json(body);
    });
    return built;
  }

  beforeAll(async () => {
    const spec = loadBundle("signed");
    const listen = (handler: express.Express) =>
      new Promise<string>((resolve) => {
        const server = handler.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`));
        servers.push(server);
      });
    origins.assembly = await listen(app(createSpecValidator(spec).handle));
    origins.public = await listen(app(OpenApiValidator.middleware(publicOptions(spec) as never)));
  });
  afterAll(() => {
    for (const server of servers) server.close();
  });

  const store = { id: 20001, merchantId: 10001, name: "Jade Garden", address: "88 Nanjing Road", phone: "021-63210001", latitude: 31.2345, longitude: 121.4737, status: 0 };
  const page = { code: 0, msg: "success", data: { list: [store], total: 1, pageNo: 1, pageSize: 10 } };
  const answers: [string, { status: number; body: unknown }][] = [
    ["a valid page", { status: 200, body: page }],
    ["a page missing its list, with a wrong type", { status: 200, body: { ...page, data: { total: "1", pageNo: 1, pageSize: 10 } } }],
    ["an error envelope with its status", { status: 400, body: { code: 100009, msg: "merchantId must be >= 1", data: null } }],
    ["an error envelope missing msg", { status: 404, body: { code: 300001, data: null } }],
    ["a status the operation does not declare", { status: 418, body: page }],
    ["null", { status: 200, body: null }],
  ];
  // The last one is too long to be remembered: chosen afresh for every answer.
  const accepts = ["*/*", "application/json", "application/json; charset=utf-8", "text/html", "application/*", "text/html, application/json;q=0.9", "", `${Array.from({ length: 40 }, (_, i) => `text/x-${i}`).join(", ")}, application/json`];

  it.each(answers.flatMap(([name, answer]) => accepts.map((accept) => [`${name}, Accept "${accept.length > 60 ? `${accept.slice(0, 40)}… (${accept.length} characters)` : accept}"`, answer, accept] as const)))("%s", async (_name, answer, accept) => {
    // Twice each: the second answer comes from the kit's memo of the first one's choice.
    for (let round = 0; round < 2; round++) {
      const [ours, theirs] = await Promise.all(
        (["assembly", "public"] as const).map(async (variant) => {
          const response = await fetch(`${origins[variant]}/open-api/v1/stores?merchantId=10001`, { headers: { accept, "x-answer": JSON.stringify(answer) } });
          return { status: response.status, text: await response.text() };
        }),
      );
      expect(ours).toEqual(theirs);
    }
  });

  it("the verdicts are real: a broken answer is refused, a good one passes", async () => {
    const verdict = async (answer: { status: number; body: unknown }) => {
      const response = await fetch(`${origins.assembly}/open-api/v1/stores?merchantId=10001`, { headers: { "x-answer": JSON.stringify(answer) } });
      return ((await response.json()) as { responseValidation: string }).responseValidation;
    };
    expect(await verdict({ status: 200, body: page })).toBe("passed");
    expect(await verdict({ status: 200, body: { ...page, data: { total: "1", pageNo: 1, pageSize: 10 } } })).toMatch(/list/);
  });
});

