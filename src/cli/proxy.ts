// mop proxy: a validating proxy in front of a server.
import { parseArgs } from "node:util";
import { startProxy, type ProxyViolation } from "../proxy/index.js";
import { EXIT_USAGE, type Subcommand } from "./io.js";

const HELP = `Usage: mop proxy --target URL [options]

Sits between an app and a server: validates every request (spec and signature) and every
response (spec), passes traffic through unchanged, and logs each violation.

  --target URL             the server's base address, e.g. https://staging.example.com
  --host HOST              listen address (default 127.0.0.1)
  --port N                 listen port (default 4020)
  --app-key KEY            with --app-secret: verify signatures fully (repeat both for several apps)
  --app-secret SECRET      the app's secret (or MOP_APP_SECRET for a single app)
  --fail-on-violation      answer a violating request or response with the envelope error instead of passing it on
  --strict-http            demand the registry's HTTP status for errors
  --json                   log violations as JSON lines
  -h, --help               show this help
`;

export const proxyCommand: Subcommand = async (args, io) => {
  let values;
  try {
    values = parseArgs({
      args,
      strict: true,
      options: {
        target: { type: "string" },
        host: { type: "string" },
        port: { type: "string" },
        "app-key": { type: "string", multiple: true },
        "app-secret": { type: "string", multiple: true },
        "fail-on-violation": { type: "boolean" },
        "strict-http": { type: "boolean" },
        json: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    io.stderr(`mop proxy: ${(error as Error).message}\n\n${HELP}`);
    return EXIT_USAGE;
  }
  if (values.help) {
    io.stdout(HELP);
    return 0;
  }
  if (!values.target || !/^https?:\/\//.test(values.target)) {
    io.stderr(`mop proxy: --target must be an http(s) URL\n`);
    return EXIT_USAGE;
  }
  const keys = values["app-key"] ?? [];
  const secretsGiven = values["app-secret"] ?? (process.env.MOP_APP_SECRET ? [process.env.MOP_APP_SECRET] : []);
  if (keys.length !== secretsGiven.length) {
    io.stderr("mop proxy: give one --app-secret per --app-key\n");
    return EXIT_USAGE;
  }
  const port = values.port === undefined ? 4020 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    io.stderr(`mop proxy: --port must be 0-65535\n`);
    return EXIT_USAGE;
  }
  const secrets = keys.length ? new Map(keys.map((key, i) => [key, [secretsGiven[i]!]])) : undefined;
  const log = (v: ProxyViolation) =>
    io.stdout(values.json ? `${JSON.stringify(v)}\n` : `${v.time} VIOLATION ${v.direction} ${v.method} ${v.path}${v.operationId ? ` (${v.operationId})` : ""}: ${v.problems.join("; ")}\n`);
  const proxy = await startProxy({
    target: values.target,
    host: values.host ?? "127.0.0.1",
    port,
    ...(secrets && { secrets }),
    failOnViolation: Boolean(values["fail-on-violation"]),
    strictHttp: Boolean(values["strict-http"]),
    onViolation: log,
  });
  io.stdout(`mop proxy: ${proxy.url} -> ${values.target}${secrets ? "" : " (no secrets: signatures checked for presence only)"}\n`);
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  await proxy.close();
  return 0;
};
