// Handler tables keyed by operationId, every type derived from generated/: the input is the
// operation's request body, query and path parameters as openapi-typescript wrote them, except
// that every int64 id (body, path, query) is a bigint: the request step converted exactly the
// spec's int64 fields. The output is the `data` of the operation's success envelope. A handler
// for an operationId the spec lacks, a missing handler, a field the spec does not have: each
// fails to compile (test/server/handlers.test-d.ts).
import type { Request } from "express";
import type { KeyedOperationErrorNames, KeyedOutputs } from "../../generated/keyed.handlers.js";
import type { operations as KeyedOperations } from "../../generated/keyed.js";
import type { KeyedOperationId, keyedOperations } from "../../generated/keyed.operations.js";
import type { SignedOperationErrorNames, SignedOutputs } from "../../generated/signed.handlers.js";
import type { operations as SignedOperations } from "../../generated/signed.js";
import type { SignedOperationId, signedOperations } from "../../generated/signed.operations.js";

export type { KeyedOperationId, SignedOperationId };
import type { ServerApp } from "./callers.js";
import type { KeyedErrorName, RefusalError, SignedErrorName } from "./errors.js";

/** An int64 id (`number | bigint` in the generated types) given exact, as bigint; other types as they are. */
export type ExactId<V> = bigint extends V ? Exclude<V, number> : V;
type ExactIds<T> = { [K in keyof T]: ExactId<T[K]> };
/** A request body as the kit gives it: every int64 field, however deep, as bigint (the request step converts exactly those). */
export type ExactIdsIn<T> = bigint extends T ? Exclude<T, number> : T extends readonly (infer Item)[] ? ExactIdsIn<Item>[] : T extends object ? { [K in keyof T]: ExactIdsIn<T[K]> } : T;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** T with the keys that have a default made present (the validator fills them in). */
type WithDefaults<T, Keys> = [Keys & keyof T] extends [never] ? T : Simplify<Omit<T, Keys & keyof T> & { [K in Keys & keyof T]-?: Exclude<T[K], undefined> }>;

// generated/*.operations.ts says which query parameters and top-level body properties have a default.
type QueryDefaults<Entry> = Entry extends { query: infer Q } ? { [K in keyof Q]: Q[K] extends { default: unknown } ? K : never }[keyof Q] : never;
type BodyDefaults<Entry> = Entry extends { bodyDefaults: readonly (infer Name)[] } ? Name : never;

/** A parameter location's object: {} when the operation has none. */
type ParametersIn<Op, Where extends "path" | "query"> = Op extends { parameters: infer P }
  ? P extends { [W in Where]?: infer In }
    ? [NonNullable<In>] extends [never]
      ? Record<never, never>
      : ExactIds<NonNullable<In>>
    : Record<never, never>
  : Record<never, never>;

/** The JSON request body: the generated type; undefined when the operation takes none (or it was not sent and is optional). */
export type RequestBodyOf<Op> = Op extends { requestBody: { content: { "application/json": infer Body } } }
  ? Body
  : Op extends { requestBody?: { content: { "application/json": infer Body } } }
    ? [NonNullable<Op["requestBody"]>] extends [never]
      ? undefined
      : Body | undefined
    : undefined;

/** The body as a handler gets it: defaults applied, int64 ids as bigint. */
type BodyWithDefaults<Body, Names> = Body extends object ? WithDefaults<ExactIdsIn<Body>, Names> : Body;

/** The success envelope of the 200 answer (the 200 schema admits the error envelope too, told apart by its code). */
type SuccessEnvelopeOf<Op> = Op extends { responses: { 200: { content: { "application/json": infer E } } } } ? Extract<E, { code: 0 } | { code: 200 }> : never;

/** The `data` of an operation's success envelope. */
export type ResponseDataOf<Op> = SuccessEnvelopeOf<Op> extends { data: infer D } ? D : never;

/** What every handler is told about the request besides its parameters. */
export interface RequestFacts {
  /** Scheme, host and port the request was addressed to (e.g. for URLs in an answer). */
  origin: string;
  /** The Express request, for anything else (headers, a request id set by earlier middleware). */
  request: Request;
}

export interface SignedRequestFacts<App extends ServerApp = ServerApp> extends RequestFacts {
  /** The app key whose signature was verified. */
  appKey: string;
  /** The app your lookup (`apps`) gave for it, looked up once for the whole request. */
  app: App;
}

export interface KeyedRequestFacts extends RequestFacts {
  /** The bearer API key that was accepted. */
  apiKey: string;
}

/** A handler's input: the validated body (defaults applied), query (defaults applied) and path parameters. */
export type OperationInput<Op, Entry = unknown> = {
  body: BodyWithDefaults<RequestBodyOf<Op>, BodyDefaults<Entry>>;
  query: WithDefaults<ParametersIn<Op, "query">, QueryDefaults<Entry>>;
  path: ParametersIn<Op, "path">;
};

type SignedTable = typeof signedOperations;
type KeyedTable = typeof keyedOperations;

/** The registry names of the errors an operation declares (openapi/errors.yaml appliesTo; generated/signed.handlers.ts). */
export type SignedErrorNameOf<Id extends SignedOperationId> = SignedOperationErrorNames[Id];
export type KeyedErrorNameOf<Id extends KeyedOperationId> = KeyedOperationErrorNames[Id];

/** Builds the refusal of a declared error: `return refuse("ORDER_NOT_FOUND", "…")` (or throw it). */
export type Refuse<Name extends SignedErrorName | KeyedErrorName> = <N extends Name>(name: N, message: string, headers?: Record<string, string>) => RefusalError<N>;

export type HandlerInput<Id extends SignedOperationId, App extends ServerApp = ServerApp> = OperationInput<SignedOperations[Id], SignedTable[Id]> &
  SignedRequestFacts<App> & {
    /** A refusal with one of the errors this operation declares; an undeclared name does not compile. */
    refuse: Refuse<SignedErrorNameOf<Id>>;
  };
/** The data of the operation's success envelope, as a named type (GetStoreOutput, ...). */
export type HandlerOutput<Id extends SignedOperationId> = SignedOutputs[Id];
/** What a handler may answer: the data, or a refusal with an error its operation declares. */
export type HandlerResult<Id extends SignedOperationId> = HandlerOutput<Id> | RefusalError<SignedErrorNameOf<Id>>;
/**
 * Returns the data of the success envelope, or returns (or throws) a RefusalError for a
 * registry error. A returned refusal, and one made with `input.refuse`, must be an error the
 * operation declares (compile time); a thrown `signedError` of another is caught at run time
 * (logged, 100099).
 */
export type Handler<Id extends SignedOperationId, App extends ServerApp = ServerApp> = (input: HandlerInput<Id, App>) => HandlerResult<Id> | Promise<HandlerResult<Id>>;

/** Every operation of the signed interface, each with its own types; `App` is what your app lookup gives. */
export type SignedHandlers<App extends ServerApp = ServerApp> = { [Id in SignedOperationId]: Handler<Id, App> };

export type KeyedHandlerInput<Id extends KeyedOperationId> = OperationInput<KeyedOperations[Id], KeyedTable[Id]> &
  KeyedRequestFacts & {
    /** A refusal with one of the errors this operation declares; an undeclared name does not compile. */
    refuse: Refuse<KeyedErrorNameOf<Id>>;
  };
export type KeyedHandlerOutput<Id extends KeyedOperationId> = KeyedOutputs[Id];
export type KeyedHandlerResult<Id extends KeyedOperationId> = KeyedHandlerOutput<Id> | RefusalError<KeyedErrorNameOf<Id>>;
export type KeyedHandler<Id extends KeyedOperationId> = (input: KeyedHandlerInput<Id>) => KeyedHandlerResult<Id> | Promise<KeyedHandlerResult<Id>>;

/** Every operation of the key-based interface. */
export type KeyedHandlers = { [Id in KeyedOperationId]: KeyedHandler<Id> };

/** A handler table for any generated `operations` and operation table (e.g. a spec served with createOperationRouter). */
export type OperationHandlers<Ops, Table = Record<keyof Ops, unknown>, Facts = RequestFacts> = {
  [Id in keyof Ops]: (input: OperationInput<Ops[Id], Id extends keyof Table ? Table[Id] : unknown> & Facts) => ResponseDataOf<Ops[Id]> | Promise<ResponseDataOf<Ops[Id]>>;
};
