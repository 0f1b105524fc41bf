// What every check gets: the server's coordinates, the contract, a way to call operations
// and judge the answers, shared resources created on demand, and the optional extras
// (sandbox control API, callback receiver).
import { CheckFailure, CheckSkipped, NotImplemented } from "./errors.js";
import type { CallbackReceiver } from "./receiver.js";
import type { ClockDiagnosis } from "./clock.js";
import type { ControlApi } from "./control.js";
import type { ConformanceHttp, Exchange } from "./http.js";
import { judgeAnswer, type Dialect as Variant, type SpecSchemas, type Verdict } from "../contract/index.js";
import { KeyedErrors, SignedErrors } from "../../generated/error-codes.js";
import { bearerRequest, bodyText, buildUrl, signedRequest, type RequestInput } from "./requests.js";
import type { ResolvedOptions } from "./options.js";
import { SharedResources } from "./resources.js";

export interface Answer {
  exchange: Exchange;
  verdict: Verdict;
  /** The operation the request was sent for, and its interface. */
  operationId: string;
  variant: Variant;
}

export class CheckContext {
  /** The checker's own customer, orders and trades, made on first use. */
  readonly resources: SharedResources;
  /** The server's clock, measured once before the checks. */
  clock: ClockDiagnosis | undefined;

  constructor(
    readonly options: ResolvedOptions,
    readonly http: ConformanceHttp,
    readonly schemas: Record<Variant, SpecSchemas>,
    readonly control: ControlApi | undefined,
    readonly receiver: CallbackReceiver | undefined,
    /** Unique per run, so that what the checker creates never collides with other data. */
    readonly runId: string,
  ) {
    this.resources = new SharedResources({
      runId,
      merchantIds: options.merchantIds,
      data: async (operationId, input) => (await this.signed(operationId, input)).verdict.data,
      setup: (operationId, input) => this.setup(operationId, input),
    });
  }

  /** Sends a signed request for an operation of the signed spec (optionally broken on purpose). */
  async signed(operationId: string, input: RequestInput = {}): Promise<Answer> {
    const operation = this.schemas.signed.operation(operationId);
    const url = buildUrl(this.options.baseUrl + this.options.basePath, operation.path, input);
    const exchange = await this.http.send(signedRequest(operation.method, url, bodyText(input.body), this.options, input.tamper));
    const answer: Answer = { exchange, verdict: judgeAnswer(this.schemas.signed, "signed", operationId, exchange, this.options.strictHttp), operationId, variant: "signed" };
    return input.invalidPath ? answer : notImplementedOr(answer);
  }

  /**
   * A call that prepares a check (the order a refund check refunds, the template a purchase
   * buys): it must succeed, and when it does not, the failure cites this call and the rule of
   * its own operation, never the rule of the check it was preparing.
   */
  async setup(operationId: string, input: RequestInput = {}): Promise<unknown> {
    const answer = await this.signed(operationId, input);
    try {
      return this.expectSuccess(answer, `signed spec, operation ${operationId}, response 200`);
    } catch (error) {
      if (error instanceof CheckFailure) throw new CheckFailure({ ...error.detail, message: `setting up the check, ${operationId} failed: ${error.detail.message}` });
      throw error;
    }
  }

  /** Sends a signed request to a path no operation may have (for routing checks); not judged. */
  async signedToPath(method: string, path: string, input: RequestInput = {}): Promise<Exchange> {
    const url = buildUrl(this.options.baseUrl + this.options.basePath, path, input);
    return this.http.send(signedRequest(method, url, bodyText(input.body), this.options, input.tamper));
  }

  /** Sends a request of the key-based spec; apiKey undefined sends no Authorization header. */
  async keyed(operationId: string, input: RequestInput & { apiKey?: string | null } = {}): Promise<Answer> {
    const operation = this.schemas.keyed.operation(operationId);
    const url = buildUrl(this.options.baseUrl + "/v1", operation.path, input);
    const key = input.apiKey === null ? undefined : (input.apiKey ?? this.options.apiKey);
    const exchange = await this.http.send(bearerRequest(operation.method, url, key));
    return notImplementedOr({ exchange, verdict: judgeAnswer(this.schemas.keyed, "keyed", operationId, exchange, this.options.strictHttp), operationId, variant: "keyed" });
  }

  /** The answer must be a conforming success; returns its data. */
  expectSuccess(answer: Answer, rule: string): unknown {
    const { verdict, exchange } = answer;
    if (!verdict.success || verdict.problems.length > 0) {
      throw new CheckFailure({
        message: verdict.success ? `the answer does not conform: ${verdict.problems.join("; ")}` : `the call failed${verdict.code !== undefined ? ` with code ${verdict.code}` : ""}: ${verdict.problems.join("; ") || messageOf(exchange)}`,
        // The schema a success must match: the 200 response's, whatever answer came instead.
        expected: `a success envelope valid against ${this.successLocation(answer)}`,
        rule,
        exchange,
      });
    }
    return verdict.data;
  }

  /** Spec location of the operation's 200 response schema, e.g. signed.openapi.json#/paths/…/200/…/schema. */
  successLocation(answer: Pick<Answer, "operationId" | "variant">): string {
    const schemas = this.schemas[answer.variant];
    const pointer = schemas.responseSchemaPointer(answer.operationId, "200") ?? `${schemas.operation(answer.operationId).pointer}/responses/200`;
    return `${answer.variant}.openapi.json#${pointer}`;
  }

  /** The answer must be a conforming refusal with this envelope code. */
  expectRefused(answer: Answer, code: number, rule: string, why: string): void {
    const { verdict, exchange } = answer;
    if (verdict.success) {
      throw new CheckFailure({ message: `the server accepted ${why}`, expected: `refusal with code ${code}`, rule, exchange });
    }
    if (verdict.code !== code) {
      throw new CheckFailure({
        message: `${why} was refused with ${verdict.code === undefined ? "no envelope code" : `code ${verdict.code}`}${verdict.problems.length ? ` (${verdict.problems.join("; ")})` : ""}: ${messageOf(exchange)}`,
        expected: `refusal with code ${code}`,
        rule,
        exchange,
      });
    }
    if (verdict.problems.length > 0) {
      throw new CheckFailure({ message: `the refusal does not conform: ${verdict.problems.join("; ")}`, expected: `a ${code} error envelope as the spec declares it`, rule, exchange });
    }
  }

  requireControl(): ControlApi {
    if (!this.control) throw new CheckSkipped("the server has no sandbox control API to make a payment happen (run against `mop sandbox`, or mount test hooks on the server and pass --control-url: docs/conformance.md, \"Test hooks\")");
    return this.control;
  }

  requireReceiver(): CallbackReceiver {
    if (!this.receiver) throw new CheckSkipped("no callback receiver (pass --notify-url with a public URL forwarding to --receiver-port, or run against `mop sandbox --allow-insecure-notify`)");
    return this.receiver;
  }
}

/** The codes of "no such operation here": what a partial implementation answers for what it leaves out. */
const UNROUTED: Record<Variant, readonly number[]> = {
  signed: [SignedErrors.PATH_NOT_FOUND.code, SignedErrors.METHOD_NOT_ALLOWED.code],
  keyed: [KeyedErrors.KEYED_PATH_NOT_FOUND.code, KeyedErrors.KEYED_METHOD_NOT_ALLOWED.code],
};

/** An operation of the spec answered as unrouted is not implemented by the server: the check is skipped, not failed. */
function notImplementedOr(answer: Answer): Answer {
  const { verdict } = answer;
  if (!verdict.success && verdict.code !== undefined && UNROUTED[answer.variant].includes(verdict.code)) {
    const message = (answer.exchange.response?.json as { msg?: unknown; message?: unknown } | undefined) ?? {};
    const text = typeof message.msg === "string" ? message.msg : typeof message.message === "string" ? message.message : "";
    throw new NotImplemented(answer.operationId, verdict.code, text.slice(0, 200));
  }
  return answer;
}

function messageOf(exchange: Exchange): string {
  if (!exchange.response) return exchange.error ?? "no answer";
  const body = exchange.response.json as { msg?: unknown; message?: unknown } | undefined;
  const message = body?.msg ?? body?.message;
  return typeof message === "string" ? `"${message}"` : `HTTP ${exchange.response.status}`;
}
