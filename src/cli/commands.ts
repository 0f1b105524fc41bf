// The list of `mop` subcommands. Each module is imported only when its command runs.
import { registerSubcommand } from "./main.js";

registerSubcommand("sign", {
  summary: "print the four signature headers for a request (--curl for a ready curl command)",
  load: async () => (await import("./sign.js")).signCommand,
});

registerSubcommand("check", {
  summary: "run the conformance checks against a live server",
  load: async () => (await import("./check.js")).checkCommand,
});

registerSubcommand("proxy", {
  summary: "validating (and, with --sign, signing) proxy: checks requests and answers against the contract",
  load: async () => (await import("./proxy.js")).proxyCommand,
});
registerSubcommand("sandbox", { summary: "run the local stateful sandbox (signed and key-based interfaces, control API, cashier)", load: async () => (await import("./sandbox.js")).sandboxCommand });
registerSubcommand("examples", {
  summary: "write the quick start's example scripts into your project (default ./mop-examples)",
  load: async () => (await import("./examples.js")).examplesCommand,
});
