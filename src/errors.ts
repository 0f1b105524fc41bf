// The root of every error the package throws, so an app can catch the platform's failures in
// one place and still tell them apart by class (each subclass sets its own `name`):
//
//   client       ApiError, ClientConfigError, NetworkError, TimeoutError, RedirectError,
//                ResponseTooLargeError, UnexpectedResponseError
//   signing      SigningInputError, NonceStoreUnavailableError
//   callbacks    CallbackConfigError
//   json         JsonStructureError (a SyntaxError), JsonValueError (a TypeError)
//   sandbox      SandboxConfigError, FixtureError (and RefusalError inside: a request refused)
//   conformance  OptionsError, ConnectionError (and CheckFailure, CheckSkipped inside a run)
//   proxy        ProxyConfigError
//   cli          UsageError, MissingPeerError
//   any part     PeerDependencyMissingError: an optional peer (ioredis, express, ...) is not
//                installed (the CLI's MissingPeerError is one, naming the command too);
//                FieldConfigError: an option or argument cannot be used, `field` naming it
//                (ClientConfigError, SigningInputError, CallbackConfigError,
//                SandboxConfigError, ServerConfigError and ProxyConfigError are each one)
//
// The two JSON errors keep the built-in class JSON.parse and JSON.stringify throw for the same
// input, so callers that treat a SyntaxError as unreadable JSON keep working. JavaScript has
// single inheritance, so such a class is marked instead (markAsPlatformError) and
// `instanceof MerchantOpenPlatformError` holds for it too.

const PLATFORM_ERROR: unique symbol = Symbol("MerchantOpenPlatformError");

/** The base of every error thrown by the package: `catch (e) { if (e instanceof MerchantOpenPlatformError) ... }`. */
export class MerchantOpenPlatformError extends Error {
  override readonly name: string = "MerchantOpenPlatformError";
  /** The operation being called, when known (e.g. "createOrder"). */
  operationId: string | undefined;

  constructor(message: string, options?: { cause?: unknown; operationId?: string | undefined }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.operationId = options?.operationId;
  }

  /** Subclasses answer as usual; the root also claims the classes marked with markAsPlatformError. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (this !== MerchantOpenPlatformError) return Function.prototype[Symbol.hasInstance].call(this, value);
    return (typeof value === "object" || typeof value === "function") && value !== null && (value as { [PLATFORM_ERROR]?: unknown })[PLATFORM_ERROR] === true;
  }
}

Object.defineProperty(MerchantOpenPlatformError.prototype, PLATFORM_ERROR, { value: true });

/** A feature needs an optional peer dependency (ioredis, express, ...) that is not installed; `peer` names it. */
export class PeerDependencyMissingError extends MerchantOpenPlatformError {
  override readonly name: string = "PeerDependencyMissingError";

  constructor(
    /** The package to install, e.g. "ioredis". */
    readonly peer: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * An option or argument the caller gave cannot be used; `field` names it (e.g. "appSecret",
 * "server.maxConnections"). Each part throws its own subclass (ClientConfigError,
 * SandboxConfigError, ...), so `catch (e) { if (e instanceof FieldConfigError) show(e.field) }`
 * covers them all.
 */
export class FieldConfigError extends MerchantOpenPlatformError {
  override readonly name: string = "FieldConfigError";
  /** The option or argument at fault. */
  readonly field: string;

  constructor(field: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.field = field;
  }
}

/** Marks an error class that must extend a built-in one (SyntaxError, ...) as one of the package's errors. */
export function markAsPlatformError(errorClass: abstract new (...args: never[]) => Error): void {
  Object.defineProperty(errorClass.prototype, PLATFORM_ERROR, { value: true });
}
