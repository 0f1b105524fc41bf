// mop proxy: a validating (and, with --sign, signing) proxy in front of a server.
import { parseArgs } from "node:util";
import { PROXY_DEFAULTS, ProxyConfigError, startProxy, type ProxyViolation } from "../proxy/index.js";
import { UsageError } from "./errors.js";
import type { Subcommand } from "./io.js";

const HELP = `Usage: mop proxy --target URL [options]

Sits between an app and a server: validates every request (spec and signature) and every
answer (spec), passes traffic through byte for byte, and logs each violation.

  --target URL             the server's base address, e.g. https://staging.example.com (no
                           user:password@: credentials are refused)
  --host HOST              listen address (default 127.0.0.1)
  --port N                 listen port (default 4020; 0 picks a free one)
  --allowed-host NAME      a Host name to answer besides loopback names, the listen address and
                           IP addresses (repeat for several); other names are refused (DNS rebinding)
  --app-key KEY            with --app-secret: verify signatures fully (repeat both for several apps)
  --app-secret SECRET      the app's secret (or MOP_APP_SECRET for a single app)
  --sign                   give every request to the signed interface a fresh X-Timestamp, X-Nonce
                           and X-Sign over its exact body (needs --app-key and a secret); requests
                           that already carry X-Sign pass unchanged
  --replace-signature      with --sign: re-sign requests that already carry X-Sign too
  --timeout MS             the target must answer within MS milliseconds, else 504 (default ${PROXY_DEFAULTS.timeoutMs})
  --fail-on-violation      answer a violating request or answer with the envelope error instead of passing it on
  --strict-http            demand the registry's HTTP status for errors
  --json                   log violations as JSON lines
  -h, --help               show this help

Exit codes: 0 after a clean stop (SIGINT, SIGTERM), 2 for usage errors or when the port
cannot be opened. Secrets are never printed.
`;

export interface ProxyCommandOptions {
  /** Resolves when the proxy should stop. Default: SIGINT or SIGTERM. */
  stopSignal?: Promise<void>;
  /** Called once the proxy listens, with its URL (tests use it to find the port). */
  onListening?: (url: string) => void;
}

/** A usage problem reported by its message alone (parseArgs' own are followed by the help). */
function usageError(message: string): UsageError {
  return new UsageError(message, { after: "" });
}

export function createProxyCommand(command: ProxyCommandOptions = {}): Subcommand {
  return async (args, io) => {
    let values;
    try {
      values = parseArgs({
        args,
        strict: true,
        options: {
          target: { type: "string" },
          host: { type: "string" },
          port: { type: "string" },
          "allowed-host": { type: "string", multiple: true },
          "app-key": { type: "string", multiple: true },
          "app-secret": { type: "string", multiple: true },
          sign: { type: "boolean" },
          "replace-signature": { type: "boolean" },
          timeout: { type: "string" },
          "fail-on-violation": { type: "boolean" },
          "strict-http": { type: "boolean" },
          json: { type: "boolean" },
          help: { type: "boolean", short: "h" },
        },
      }).values;
    } catch (error) {
      // parseArgs names the option, never echoes a value: no secret can reach this message.
      throw new UsageError((error as Error).message, { after: HELP, cause: error });
    }
    if (values.help) {
      io.stdout(HELP);
      return 0;
    }
    if (!values.target || !URL.canParse(values.target) || !/^https?:\/\//i.test(values.target)) throw usageError("--target must be an http(s) URL, e.g. --target http://127.0.0.1:4010");
    if (hasCredentials(values.target)) {
      // Never echo the value: it holds a password.
      throw usageError(
        "--target must not carry credentials (user:password@): mop proxy never sends them, and a password in a command line is visible to every user of the machine. " +
          "Give the target without them; an Authorization header the app sends is passed through unchanged.",
      );
    }
    const env = io.env;
    const keys = values["app-key"] ?? [];
    const secretsGiven = values["app-secret"] ?? (env.MOP_APP_SECRET ? [env.MOP_APP_SECRET] : []);
    if (values.sign && (keys.length === 0 || secretsGiven.length === 0)) {
      throw usageError("--sign needs the app to sign as: --app-key KEY and its secret (--app-secret SECRET or the MOP_APP_SECRET environment variable)");
    }
    if (values["replace-signature"] && !values.sign) throw usageError("--replace-signature works only with --sign");
    if (keys.length !== secretsGiven.length) throw usageError("give one --app-secret per --app-key (or one --app-key with MOP_APP_SECRET)");
    if (secretsGiven.some((secret) => secret === "")) throw usageError("an --app-secret is empty");
    const port = values.port === undefined ? 4020 : Number(values.port);
    if (!/^\d+$/.test(values.port ?? "0") || port > 65535) throw usageError("--port must be a whole number from 0 to 65535");
    const timeoutMs = values.timeout === undefined ? PROXY_DEFAULTS.timeoutMs : Number(values.timeout);
    if (!/^\d+$/.test(values.timeout ?? "1") || timeoutMs < 1) throw usageError("--timeout must be a whole number of milliseconds, at least 1");

    const secrets = keys.length ? new Map<string, string[]>() : undefined;
    keys.forEach((key, i) => secrets!.set(key, [...(secrets!.get(key) ?? []), secretsGiven[i]!]));
    const log = (v: ProxyViolation) =>
      io.stdout(values.json ? `${JSON.stringify(v)}\n` : `${v.time} VIOLATION ${v.direction} ${v.method} ${v.path}${v.operationId ? ` (${v.operationId})` : ""}: ${v.problems.join("; ")}\n`);
    let proxy;
    try {
      proxy = await startProxy({
        target: values.target,
        host: values.host ?? "127.0.0.1",
        port,
        allowedHosts: values["allowed-host"] ?? [],
        ...(secrets && { secrets }),
        ...(values.sign && { sign: { replace: Boolean(values["replace-signature"]) } }),
        timeoutMs,
        failOnViolation: Boolean(values["fail-on-violation"]),
        strictHttp: Boolean(values["strict-http"]),
        onViolation: log,
      });
    } catch (error) {
      if (error instanceof ProxyConfigError && error.field === "allowedHosts") throw usageError(`--allowed-host: ${error.message}`);
      throw usageError(`cannot listen on ${values.host ?? "127.0.0.1"}:${port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    if (values.sign && !isLoopback(values.host ?? "127.0.0.1")) {
      io.stderr(`mop proxy: WARNING: signing for ${keys[0]} on ${values.host}, which is not a loopback address: anyone who can reach ${proxy.url} can make signed calls as this app.\n`);
    }
    const mode = values.sign ? ` (signing as ${keys[0]}${values["replace-signature"] ? ", replacing signatures" : ""})` : secrets ? "" : " (no secrets: signatures checked for presence only)";
    io.stdout(`mop proxy: ${proxy.url} -> ${values.target}${mode}\n`);
    command.onListening?.(proxy.url);
    await (command.stopSignal ??
      new Promise<void>((resolve) => {
        process.once("SIGINT", () => resolve());
        process.once("SIGTERM", () => resolve());
      }));
    await proxy.close();
    return 0;
  };
}

function hasCredentials(url: string): boolean {
  const parsed = new URL(url);
  return parsed.username !== "" || parsed.password !== "";
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export const proxyCommand: Subcommand = createProxyCommand();
