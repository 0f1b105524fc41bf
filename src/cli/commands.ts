// The table of `mop` commands. Each module is imported only when its command runs, so `mop sign`
// works in a project without the sandbox's optional peers (express, ...).
import { MissingPeerError } from "./errors.js";
import type { Subcommand } from "./io.js";
import { missingPeer } from "./peers.js";

export interface Command {
  name: string;
  /** One line for `mop --help`. */
  summary: string;
  run: Subcommand;
}

/** A command whose module is loaded on first run; a missing optional peer becomes a MissingPeerError. */
function lazy(name: string, load: () => Promise<Subcommand>): Subcommand {
  return async (args, io) => {
    let command: Subcommand;
    try {
      command = await load();
    } catch (error) {
      const peer = missingPeer(error);
      if (peer === undefined) throw error;
      throw new MissingPeerError(name, peer, { cause: error });
    }
    return command(args, io);
  };
}

export const COMMANDS: readonly Command[] = [
  {
    name: "sign",
    summary: "print the four signature headers for a request (--curl for a ready curl command)",
    run: lazy("sign", async () => (await import("./sign.js")).signCommand),
  },
  {
    name: "check",
    summary: "run the conformance checks against a live server",
    run: lazy("check", async () => (await import("./check.js")).checkCommand),
  },
  {
    name: "proxy",
    summary: "validating (and, with --sign, signing) proxy: checks requests and answers against the contract",
    run: lazy("proxy", async () => (await import("./proxy.js")).proxyCommand),
  },
  {
    name: "sandbox",
    summary: "run the local stateful sandbox (signed and key-based interfaces, control API, cashier)",
    run: lazy("sandbox", async () => (await import("./sandbox.js")).sandboxCommand),
  },
  {
    name: "listen",
    summary: "forward an app's callbacks from a sandbox (a shared one too) to a URL on this machine",
    run: lazy("listen", async () => (await import("./listen.js")).listenCommand),
  },
  {
    name: "trigger",
    summary: "send a signed test callback (or a variant: duplicate, tampered, stale, ...) to your receiver",
    run: lazy("trigger", async () => (await import("./trigger.js")).triggerCommand),
  },
  {
    name: "examples",
    summary: "write the quick start's example scripts into your project (default ./mop-examples)",
    run: lazy("examples", async () => (await import("./examples.js")).examplesCommand),
  },
];
