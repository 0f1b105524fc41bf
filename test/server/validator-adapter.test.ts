// The server kit's validator (src/server/eov/, every internal in its internals.ts) is assembled from express-openapi-validator
// internals: dist/ modules, private fields and methods, and the path-to-regexp EOV resolves.
// None of that is EOV's public API, so any release may move it. These tests fail loudly, naming
// what moved, when the installed EOV is not the version the adapter was written against or when
// any internal it uses is missing or has changed shape, and when internals.ts imports a module this
// file does not check. test/server/fast-paths.test.ts then
// proves the assembly still behaves as EOV's own middleware does.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express, { type NextFunction, type Request, type Response } from "express";
import { describe, expect, it, vi } from "vitest";
import { loadBundle } from "../../src/contract/index.js";
import { createSpecValidator, prepareSpec, validatorOptions } from "../../src/server/eov/index.js";
import { packageRoot } from "../../src/util/package-root.js";

const RECHECK = "re-check every internal src/server/eov/internals.ts uses (why each is used is said at the top of the eov module using it) against the new version, then update the pin";
const require = createRequire(import.meta.url);
const fromValidator = createRequire(require.resolve("express-openapi-validator"));

type Shape = Record<string, unknown>;

/** Fails with a message naming the internal and what to do, instead of a bare toBe(). */
function expectKind(owner: string, name: string, value: unknown, kind: "function" | "object" | "string" | "number" | "boolean" | "map" | "set" | "regexp" | "array"): void {
  const actual = value instanceof Map ? "map" : value instanceof Set ? "set" : value instanceof RegExp ? "regexp" : Array.isArray(value) ? "array" : value === null ? "null" : typeof value;
  if (actual !== kind) {
    throw new Error(`express-openapi-validator internal changed: ${owner}.${name} is ${actual}, the kit's adapter expects ${kind}; ${RECHECK}.`);
  }
}

async function importInternal(path: string): Promise<Shape> {
  try {
    return (await import(`express-openapi-validator/${path}`)) as Shape;
  } catch (error) {
    throw new Error(`express-openapi-validator internal module ${path} no longer loads (${(error as Error).message}); ${RECHECK}.`);
  }
}

function checkPinned(installed: string, manifest: { devDependencies: Shape; peerDependencies: Shape }): void {
  for (const field of ["devDependencies", "peerDependencies"] as const) {
    const pinned = manifest[field]["express-openapi-validator"];
    if (pinned !== installed) {
      throw new Error(`express-openapi-validator ${installed} is installed but package.json's ${field} pins ${String(pinned)}: the kit's adapter (src/server/eov/internals.ts) is written against the pinned version only; ${RECHECK}.`);
    }
  }
}

describe("express-openapi-validator internals the kit's adapter uses", () => {
  it("the installed version is the pinned one", () => {
    const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { devDependencies: Shape; peerDependencies: Shape };
    const installed = (JSON.parse(readFileSync(fromValidator.resolve("express-openapi-validator/package.json"), "utf8")) as { version: string }).version;
    checkPinned(installed, manifest);
  });

  it("a server started with another release is refused at start-up, saying what to install", async () => {
    const { checkValidatorVersion, SUPPORTED_VALIDATOR_VERSION } = await import("../../src/server/eov/index.js");
    const manifest = JSON.parse(readFileSync(join(packageRoot(), "package.json"), "utf8")) as { peerDependencies: Shape };
    expect(SUPPORTED_VALIDATOR_VERSION).toBe(manifest.peerDependencies["express-openapi-validator"]);
    expect(() => checkValidatorVersion()).not.toThrow();
    expect(() => checkValidatorVersion("5.6.3")).toThrow(/needs express-openapi-validator 5\.6\.2 exactly \(it uses the validator's internal modules\); 5\.6\.3 is installed\. Run: npm install express-openapi-validator@5\.6\.2/);
  });

  it("the guards fail, naming what to re-check, on another version or another shape", () => {
    expect(() => checkPinned("5.7.0", { devDependencies: { "express-openapi-validator": "5.6.2" }, peerDependencies: { "express-openapi-validator": "5.6.2" } })).toThrow(
      /express-openapi-validator 5\.7\.0 is installed but package\.json's devDependencies pins 5\.6\.2.*re-check every internal src\/server\/eov\/internals\.ts uses/,
    );
    expect(() => checkPinned("5.6.2", { devDependencies: { "express-openapi-validator": "5.6.2" }, peerDependencies: { "express-openapi-validator": "^5.6.2" } })).toThrow(/peerDependencies pins \^5\.6\.2/);
    expect(() => expectKind("SchemaPreprocessor", "resolvedSchemaCache", {}, "map")).toThrow("express-openapi-validator internal changed: SchemaPreprocessor.resolvedSchemaCache is object, the kit's adapter expects map");
    expect(() => expectKind("OpenApiContext", "routePair", undefined, "function")).toThrow("OpenApiContext.routePair is undefined");
  });

  it("each dist module loads and exports what the adapter imports", async () => {
    const expected: [string, Record<string, "function" | "set">][] = [
      ["dist/openapi.validator.js", { OpenApiValidator: "function" }],
      ["dist/framework/index.js", { OpenAPIFramework: "function" }],
      ["dist/framework/openapi.spec.loader.js", { OpenApiSpecLoader: "function" }],
      ["dist/framework/openapi.context.js", { OpenApiContext: "function" }],
      ["dist/framework/types.js", { BadRequest: "function", InternalServerError: "function", MethodNotAllowed: "function", NotFound: "function" }],
      ["dist/middlewares/parsers/schema.preprocessor.js", { SchemaPreprocessor: "function", httpMethods: "set" }],
      ["dist/middlewares/openapi.request.validator.js", { RequestValidator: "function" }],
      ["dist/middlewares/openapi.response.validator.js", { ResponseValidator: "function" }],
      ["dist/middlewares/parsers/schema.parse.js", { ParametersSchemaParser: "function" }],
      ["dist/middlewares/parsers/body.parse.js", { BodySchemaParser: "function" }],
      ["dist/middlewares/parsers/util.js", { dereferenceParameter: "function", normalizeParameter: "function" }],
      ["dist/middlewares/util.js", { ContentType: "function", ajvErrorsToValidatorError: "function", augmentAjvErrors: "function", findResponseContent: "function", useAjvCache: "function" }],
      // Not used by the adapter itself: the reference fast-paths.test.ts compares it with.
      ["dist/middlewares/openapi.metadata.js", { applyOpenApiMetadata: "function" }],
    ];
    // Every deep import of the adapter is one of the modules checked here.
    const adapter = readFileSync(join(packageRoot(), "src", "server", "eov", "internals.ts"), "utf8");
    const deepImports = [...adapter.matchAll(/from "express-openapi-validator\/(dist\/[^"]+)"/g)].map((match) => match[1]);
    expect(deepImports.filter((path) => !expected.some(([checked]) => checked === path))).toEqual([]);
    const elsewhere = ["validator.ts", "load.ts", "routing.ts", "request.ts", "response.ts", "content-type.ts", "index.ts"].filter((file) => /express-openapi-validator\/dist|as unknown as|as never/.test(readFileSync(join(packageRoot(), "src", "server", "eov", file), "utf8")));
    expect(elsewhere, "deep imports and casts of EOV's types belong in src/server/eov/internals.ts").toEqual([]);
    for (const [path, exports] of expected) {
      const module = await importInternal(path);
      for (const [name, kind] of Object.entries(exports)) expectKind(path, name, module[name], kind);
    }
    const { httpMethods } = await importInternal("dist/middlewares/parsers/schema.preprocessor.js");
    for (const method of ["get", "post", "delete"]) expect(httpMethods as Set<string>, `schema.preprocessor.js httpMethods lost ${method}; ${RECHECK}`).toContain(method);
  });

  it("the error classes still carry the status and headers the sandbox maps to envelope codes", async () => {
    const types = await importInternal("dist/framework/types.js");
    const cases: [string, number][] = [
      ["BadRequest", 400],
      ["NotFound", 404],
      ["MethodNotAllowed", 405],
    ];
    for (const [name, status] of cases) {
      const ErrorClass = types[name] as new (args: { path: string; message: string; headers?: Record<string, string> }) => Shape;
      const error = new ErrorClass({ path: "/x", message: "m", headers: { Allow: "GET" } });
      expect(error.status, `types.js ${name}.status; ${RECHECK}`).toBe(status);
      expect(error.message, `types.js ${name}.message; ${RECHECK}`).toBe("m");
    }
    const notAllowed = new (types.MethodNotAllowed as new (args: object) => Shape)({ path: "/x", message: "m", headers: { Allow: "GET" } });
    expect(notAllowed.headers, `types.js MethodNotAllowed.headers; ${RECHECK}`).toEqual({ Allow: "GET" });
  });

  it("path-to-regexp, as EOV resolves it, compiles routes into { regexp, keys[].name }", () => {
    const { pathToRegexp } = fromValidator("path-to-regexp") as { pathToRegexp?: (path: string, options: object) => Shape };
    expectKind("path-to-regexp", "pathToRegexp", pathToRegexp, "function");
    const compiled = (pathToRegexp as (path: string, options: object) => { regexp: RegExp; keys: { name: string }[] })("/open-api/v1/stores/:storeId", { sensitive: false, strict: false });
    expectKind("pathToRegexp()", "regexp", compiled.regexp, "regexp");
    expect(compiled.keys.map((key) => key.name), `pathToRegexp().keys; ${RECHECK}`).toEqual(["storeId"]);
    expect(compiled.regexp.exec("/open-api/v1/STORES/20001")?.slice(1), `pathToRegexp() case-insensitive match; ${RECHECK}`).toEqual(["20001"]);
  });

  it("a real OpenApiValidator, OpenAPIFramework, OpenApiSpecLoader and SchemaPreprocessor have the private members the adapter reads", async () => {
    const spec = loadBundle("signed");
    const { OpenApiValidator } = await importInternal("dist/openapi.validator.js");
    const validator = new (OpenApiValidator as new (options: object) => Shape)(validatorOptions(spec));
    expectKind("OpenApiValidator", "options", validator.options, "object");
    expectKind("OpenApiValidator", "options.validateResponses", (validator.options as Shape).validateResponses, "object");
    expectKind("OpenApiValidator", "ajvOpts", validator.ajvOpts, "object");
    expectKind("OpenApiValidator", "ajvOpts.preprocessor", (validator.ajvOpts as Shape).preprocessor, "object");
    expectKind("OpenApiValidator", "ajvOpts.request", (validator.ajvOpts as Shape).request, "object");
    expectKind("OpenApiValidator", "responseValidationMiddleware", validator.responseValidationMiddleware, "function");

    const { OpenAPIFramework } = await importInternal("dist/framework/index.js");
    const args = { apiDoc: structuredClone(spec), validateApiSpec: false, $refParser: { mode: "bundle" } };
    const framework = new (OpenAPIFramework as new (args: object) => Shape)(args);
    expect(framework.args, `OpenAPIFramework.args; ${RECHECK}`).toBe(args);
    for (const method of ["initialize", "loadSpec", "getBasePathsFromServers", "sortApiDocTags"]) expectKind("OpenAPIFramework", method, framework[method], "function");
    const basePaths = (framework.getBasePathsFromServers as (servers: unknown) => Shape[]).call(framework, spec.servers);
    expectKind("OpenAPIFramework", "getBasePathsFromServers()", basePaths, "array");
    expectKind("OpenAPIFramework.getBasePathsFromServers()[0]", "all", basePaths[0]?.all, "function");
    expect((basePaths[0]?.all as () => string[])().some((path) => path.startsWith("/open-api/v1")), `BasePath.all(); ${RECHECK}`).toBe(true);

    const { OpenApiSpecLoader } = await importInternal("dist/framework/openapi.spec.loader.js");
    const loader = new (OpenApiSpecLoader as new (args: object) => Shape)(args);
    expect(loader.framework, `OpenApiSpecLoader.framework (replaced by the adapter); ${RECHECK}`).toBeInstanceOf(OpenAPIFramework as new () => unknown);
    expectKind("OpenApiSpecLoader", "load", loader.load, "function");

    const { SchemaPreprocessor } = await importInternal("dist/middlewares/parsers/schema.preprocessor.js");
    const preprocessor = new (SchemaPreprocessor as new (...args: unknown[]) => Shape)(structuredClone(spec), (validator.ajvOpts as Shape).preprocessor, (validator.options as Shape).validateResponses);
    expectKind("SchemaPreprocessor", "resolvedSchemaCache", preprocessor.resolvedSchemaCache, "map");
    expectKind("SchemaPreprocessor", "preProcess", preprocessor.preProcess, "function");
  });

  it("the context and the response document prepareSpec builds have the members metadataStep reads", async () => {
    const { context, responseApiDoc, built } = await prepareSpec(loadBundle("signed"));
    const ctx = context as unknown as Shape;
    for (const field of ["expressRouteMap", "openApiRouteMap", "apiDoc"] as const) expectKind("OpenApiContext", field, ctx[field], "object");
    expectKind("OpenApiContext", "serial", ctx.serial, "number");
    expectKind("OpenApiContext", "useRequestUrl", ctx.useRequestUrl, "boolean");
    expectKind("OpenApiContext", "ignoreUndocumented", ctx.ignoreUndocumented, "boolean");
    for (const method of ["routePair", "shouldIgnoreRoute", "isManagedRoute"]) expectKind("OpenApiContext", method, ctx[method], "function");
    const [expressRoute, methods] = Object.entries(ctx.expressRouteMap as Record<string, Shape>)[0] ?? [];
    expectKind("OpenApiContext.expressRouteMap[route]", "basePath", methods?.basePath, "string");
    expectKind("OpenApiContext.routePair(route)", "openApiRoute", (context.routePair(expressRoute as string) as unknown as Shape).openApiRoute, "string");
    expectKind("SchemaPreprocessor.preProcess()", "apiDocRes.paths", responseApiDoc.paths, "object");
    // The request and response steps the adapter takes from the validator, built for real.
    const internals = built as unknown as { ajvOpts: { request: object; response: object }; options: { validateResponses: object } };
    expectKind("OpenApiValidator", "ajvOpts.response", internals.ajvOpts.response, "object");
    const { ResponseValidator } = await importInternal("dist/middlewares/openapi.response.validator.js");
    const responseValidator = new (ResponseValidator as new (...args: unknown[]) => Shape)(responseApiDoc, internals.ajvOpts.response, internals.options.validateResponses, context.serial);
    expect(responseValidator.serial, `ResponseValidator.serial; ${RECHECK}`).toBe(context.serial);
    expectKind("ResponseValidator", "validatorsCache", responseValidator.validatorsCache, "object");
    for (const method of ["buildValidators", "canValidateContentType", "_validate"]) expectKind("ResponseValidator", method, responseValidator[method], "function");
    expectKind("ResponseValidator", "ajvBody.errorsText", (responseValidator.ajvBody as Shape | undefined)?.errorsText, "function");
    const { RequestValidator } = await importInternal("dist/middlewares/openapi.request.validator.js");
    const requestValidator = new (RequestValidator as new (apiDoc: unknown, options: object) => Shape)(context.apiDoc, internals.ajvOpts.request);
    expectKind("RequestValidator", "ajv", requestValidator.ajv, "object");
    expectKind("RequestValidator", "ajv.errorsText", (requestValidator.ajv as Shape).errorsText, "function");
    expectKind("RequestValidator", "ajvBody", requestValidator.ajvBody, "object");
    expectKind("RequestValidator", "requestOpts", requestValidator.requestOpts, "object");
    for (const method of ["validate", "processQueryParam"]) expectKind("RequestValidator", method, requestValidator[method], "function");
    const { normalizeParameter } = await importInternal("dist/middlewares/parsers/util.js");
    const parameter = { name: "pageNo", in: "query", schema: { type: "integer" } };
    (normalizeParameter as (ajv: unknown, parameter: object) => unknown)(requestValidator.ajv, parameter);
    expect(parameter, `parsers/util.js normalizeParameter's default style and explode of a query parameter; ${RECHECK}`).toMatchObject({ style: "form", explode: true });
  });

  it("the request step leaves to EOV's whole path only the requests its parameter mutator has work for", async () => {
    const { RequestValidator } = await import("express-openapi-validator/dist/middlewares/openapi.request.validator.js");
    const whole = vi.spyOn(RequestValidator.prototype, "validate");
    const app = express();
    app.use(createSpecValidator(loadBundle("signed")).handle);
    app.use((_req: Request, res: Response) => void res.end("passed"));
    app.use((error: { status?: number; message?: string }, _req: Request, res: Response, _next: NextFunction) => void res.status(error.status ?? 500).end(error.message));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/open-api/v1`;
    const answer = async (path: string) => {
      const response = await fetch(`${origin}${path}`);
      return `${response.status} ${await response.text()}`;
    };
    try {
      expect(await answer("/stores?merchantId=10001&pageNo=1&pageSize=10&name=Oolong%20House")).toBe("200 passed");
      expect(await answer("/stores?pageSize=1000")).toMatch(/^400 request\/query\/pageSize must be <= 100/);
      expect(await answer("/stores?bogus=1")).toBe("400 Unknown query parameter 'bogus'");
      expect(await answer("/stores/20001")).toBe("200 passed");
      expect(whole).not.toHaveBeenCalled();
      expect(await answer("/stores?name=a,b")).toBe("400 Parameter 'name' must be url encoded. Its value may not contain reserved characters.");
      expect(await answer("/stores?merchantId[a]=1")).toMatch(/^400 /);
      expect(whole).toHaveBeenCalledTimes(2);
    } finally {
      whole.mockRestore();
      server.close();
    }
  });

  it("the response step leaves to EOV's _validate only the answers it does not validate plainly", async () => {
    const { ResponseValidator } = await import("express-openapi-validator/dist/middlewares/openapi.response.validator.js");
    const whole = vi.spyOn(ResponseValidator.prototype as unknown as { _validate(...args: unknown[]): void }, "_validate");
    const app = express();
    const verdicts: string[] = [];
    app.use((_req: Request, res: Response, next: NextFunction) => {
      res.json = function (this: Response, body: unknown) {
        // The verdict the kit's answer writer asks for (state.answerCheck).
        const invalid = (this.locals.mop as { answerCheck?: (res: Response, status: number, body: unknown) => { message?: string } | undefined } | undefined)?.answerCheck?.(this, this.statusCode, body);
        verdicts.push(invalid?.message ?? "passed");
        this.end();
        return this;
      };
      next();
    });
    app.use(createSpecValidator(loadBundle("signed")).handle);
    app.use((req: Request, res: Response) => {
      const { status, body } = JSON.parse(req.headers["x-answer"] as string) as { status: number; body: unknown };
      res.status(status).json(body);
    });
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    const answer = (status: number, body: unknown) => fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/open-api/v1/stores`, { headers: { "x-answer": JSON.stringify({ status, body }) } }).then((response) => response.text());
    const page = { code: 0, msg: "success", data: { list: [], total: 0, pageNo: 1, pageSize: 10 } };
    try {
      await answer(200, page);
      await answer(200, { ...page, data: {} });
      await answer(400, { code: 100009, msg: "bad", data: null });
      expect(verdicts[0]).toBe("passed");
      expect(verdicts[1]).toMatch(/must have required property 'list'/);
      expect(verdicts[2]).toBe("passed");
      expect(whole).not.toHaveBeenCalled();
      await answer(418, page);
      await answer(200, null);
      expect(whole).toHaveBeenCalledTimes(2);
      expect(verdicts[3]).toMatch(/no schema defined for status code '418'/);
    } finally {
      whole.mockRestore();
      server.close();
    }
  });
});
