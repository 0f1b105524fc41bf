// The sandbox control API, when the server has one: it lets checks make a payment happen
// and read callback deliveries. Operations are looked up by operationId in the bundled
// sandbox-control spec, so paths are never restated here.
import { CheckFailure, CheckSkipped } from "./errors.js";
import { SignedErrors } from "../../generated/error-codes.js";
import type { ConformanceHttp } from "./http.js";
import { buildUrl, bodyText, type ParamValue } from "./requests.js";
import { isSuccessCode, schemasFor, type SpecSchemas } from "../contract/index.js";

export class ControlApi {
  private constructor(
    private readonly http: ConformanceHttp,
    private readonly baseUrl: string,
    private readonly schemas: SpecSchemas,
  ) {}

  /** Answers a ControlApi when controlUrl serves the sandbox control API, undefined otherwise. */
  static async probe(http: ConformanceHttp, controlUrl: string): Promise<ControlApi | undefined> {
    let schemas: SpecSchemas;
    try {
      schemas = schemasFor("sandbox-control");
    } catch {
      return undefined;
    }
    const control = new ControlApi(http, controlUrl.replace(/\/+$/, ""), schemas);
    try {
      await control.call("getClock");
      return control;
    } catch {
      return undefined;
    }
  }

  async call(operationId: string, pathParams: Record<string, ParamValue> = {}, body?: unknown): Promise<unknown> {
    const operation = this.schemas.operation(operationId);
    // The control spec's paths are relative to its server, e.g. /trades/{tradeNo}/pay under /sandbox.
    const url = buildUrl(this.baseUrl, operation.path, { pathParams });
    const text = bodyText(body ?? (operation.operation.requestBody?.required ? {} : undefined));
    const exchange = await this.http.send({ method: operation.method, url, headers: text === undefined && operation.method.toUpperCase() === "GET" ? {} : { "Content-Type": "application/json" }, ...(text !== undefined && { body: text }) });
    const envelope = exchange.response?.json as { code?: number; msg?: string; data?: unknown } | undefined;
    // Test hooks that leave an operation out (a server's createTestHooksRouter with some hooks): the check cannot run.
    if (envelope?.code === SignedErrors.PATH_NOT_FOUND.code || envelope?.code === SignedErrors.METHOD_NOT_ALLOWED.code) {
      throw new CheckSkipped(`the server's control API does not implement ${operationId} (answered ${envelope.code}); see docs/conformance.md, "Test hooks"`);
    }
    if (!exchange.response || !envelope || !isSuccessCode("signed", envelope.code)) {
      // The check cannot go on; its report shows the control request and what came back.
      throw new CheckFailure({
        message: `sandbox control ${operationId} failed: ${exchange.error ?? envelope?.msg ?? `HTTP ${exchange.response?.status}`}`,
        expected: `the sandbox control API's ${operationId} to succeed (code 0), so that the check can go on`,
        rule: "the sandbox control API (docs/sandbox.md, \"The control API\")",
        exchange,
      });
    }
    return envelope.data;
  }

  payTrade(tradeNo: string): Promise<unknown> {
    return this.call("payTrade", { tradeNo });
  }
}
