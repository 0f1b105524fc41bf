// The errors of `mop`: main() answers both, so no command handles its own usage problems.
import { MerchantOpenPlatformError, PeerDependencyMissingError } from "../errors.js";

/**
 * A command was given arguments it cannot use. main() prints "mop <command>: <message>" and
 * exits 2. `after` is what follows the message: by default a pointer to the command's --help.
 */
export class UsageError extends MerchantOpenPlatformError {
  override readonly name = "UsageError";
  /** Printed after the message: undefined for the --help pointer, "" for nothing, or a text (the whole help). */
  readonly after: string | undefined;

  constructor(message: string, options?: { after?: string; cause?: unknown }) {
    super(message, options);
    this.after = options?.after;
  }
}

/** A command needs an optional peer dependency (express, ...) that is not installed. main() exits 1. */
export class MissingPeerError extends PeerDependencyMissingError {
  override readonly name = "MissingPeerError";

  constructor(
    /** The command that needs it, e.g. "sandbox". */
    readonly command: string,
    /** The package that is missing, e.g. "express". */
    peer: string,
    options?: { cause?: unknown },
  ) {
    super(peer, `mop ${command}: needs the package "${peer}", which is not installed`, options);
  }
}
