// mop check: runs the conformance checks against a live server.
import { readFileSync, writeFileSync } from "node:fs";
import { createSecureContext } from "node:tls";
import { parseArgs } from "node:util";
import { ALL_CHECKS, ConnectionError, jsonReport, junitReport, OptionsError, resultLine, runConformance, textReport, type ConformanceOptions } from "../conformance/index.js";
import { UsageError } from "./errors.js";
import type { CliIo, Subcommand } from "./io.js";

const HELP = `Usage: mop check --base-url URL --app-key KEY --app-secret SECRET [options]

Runs the contract's checks against a live server and reports every break.
Exit code: 0 every run check passed, 1 a check failed, 2 usage or connection problem.

Target:
  --base-url URL            service base address, e.g. http://127.0.0.1:4010
  --base-path PATH          /open-api/v1 (default) or /open-api (unversioned)
  --app-key KEY             app key of the signed interface
  --app-secret SECRET       app secret (repeatable during a rotation: requests are signed with
                            the first, callbacks verified against all; or MOP_APP_SECRET, or
                            MOP_APP_SECRETS as a comma-separated list)
  --merchant-id N           an authorised merchant (repeatable; the first is used for writes)
  --foreign-merchant-id N   a merchant NOT authorised for the app (permission check)
  --api-key KEY             API key of the key-based interface (or MOP_API_KEY)
  --variant signed|keyed    check only this interface (repeatable; default both)
Selection:
  --include NAME|TAG        run only matching checks (repeatable, comma-separated): a check
                            name, a group (signature), a tag, or an origin: source (rules the
                            source document states) or designed (rules the contract chose)
  --exclude NAME|TAG        skip matching checks, as --include (--exclude designed: only
                            what the source demands)
  --list                    list the checks with their origin and exit
Behaviour:
  --strict-http             demand the registry's HTTP status for errors (default: 200 also accepted)
  --concurrency N           checks run at once (default 4)
  --timeout MS              per-request timeout (default 10000)
  --rate-limit N            at most N requests per second (default unlimited)
Callbacks:
  --control-url URL         sandbox control API (default {base-url}/sandbox, probed)
  --no-control              do not use a control API
  --notify-url URL          public URL that forwards to the checker's receiver (an HTTPS
                            front for servers that refuse http notifyUrls, as the contract says)
  --receiver-host HOST      receiver address (default 127.0.0.1)
  --receiver-port N         receiver port (default ephemeral)
  --receiver-cert FILE      PEM certificate: the receiver serves HTTPS itself (with --receiver-key)
  --receiver-key FILE       PEM private key of --receiver-cert
  --callback-wait MS        how long to wait for a callback or its retry (default 20000)
Reports:
  --report json:FILE        write a JSON report (repeatable)
  --report junit:FILE       write a JUnit XML report
  -h, --help                show this help
`;

const list = (values: string[] | undefined) => (values ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);

/** Secrets from the command line, else MOP_APP_SECRETS (comma list), else MOP_APP_SECRET. */
function appSecrets(given: string[] | undefined, env: CliIo["env"]): string[] {
  if (given?.length) return given;
  const many = list(env.MOP_APP_SECRETS ? [env.MOP_APP_SECRETS] : []);
  if (many.length) return many;
  return env.MOP_APP_SECRET ? [env.MOP_APP_SECRET] : [];
}

function receiverTls(certFile: string | undefined, keyFile: string | undefined): Pick<ConformanceOptions, "receiverTls"> {
  if (certFile === undefined && keyFile === undefined) return {};
  if (certFile === undefined || keyFile === undefined) throw new OptionsError("--receiver-cert and --receiver-key go together");
  const read = (option: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new OptionsError(`${option}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  };
  const tls = { cert: read("--receiver-cert", certFile), key: read("--receiver-key", keyFile) };
  try {
    createSecureContext(tls);
  } catch (error) {
    throw new OptionsError(`--receiver-cert/--receiver-key are not a PEM certificate and its key: ${(error as Error).message}`);
  }
  return { receiverTls: tls };
}

export const checkCommand: Subcommand = async (args, io) => {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      options: {
        "base-url": { type: "string" },
        "base-path": { type: "string" },
        "app-key": { type: "string" },
        "app-secret": { type: "string", multiple: true },
        "merchant-id": { type: "string", multiple: true },
        "foreign-merchant-id": { type: "string" },
        "api-key": { type: "string" },
        variant: { type: "string", multiple: true },
        include: { type: "string", multiple: true },
        exclude: { type: "string", multiple: true },
        list: { type: "boolean" },
        "strict-http": { type: "boolean" },
        concurrency: { type: "string" },
        timeout: { type: "string" },
        "rate-limit": { type: "string" },
        "control-url": { type: "string" },
        "no-control": { type: "boolean" },
        "notify-url": { type: "string" },
        "receiver-host": { type: "string" },
        "receiver-port": { type: "string" },
        "receiver-cert": { type: "string" },
        "receiver-key": { type: "string" },
        "callback-wait": { type: "string" },
        report: { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    throw new UsageError((error as Error).message, { after: HELP, cause: error });
  }
  if (parsed.help) {
    io.stdout(HELP);
    return 0;
  }
  if (parsed.list) {
    for (const check of ALL_CHECKS) io.stdout(`${check.name.padEnd(40)} ${check.origin.padEnd(8)} [${check.tags.join(", ")}] ${check.purpose}\n`);
    return 0;
  }
  const number = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!Number.isFinite(n) || n < 0) throw new OptionsError(`--${name} must be a non-negative number, got "${value}"`);
    return n;
  };
  const reports: Array<{ format: "json" | "junit"; file: string }> = [];
  try {
    for (const spec of parsed.report ?? []) {
      const match = spec.match(/^(json|junit):(.+)$/);
      if (!match) throw new OptionsError(`--report takes json:FILE or junit:FILE, got "${spec}"`);
      reports.push({ format: match[1] as "json" | "junit", file: match[2]! });
    }
    const basePath = parsed["base-path"];
    if (basePath !== undefined && basePath !== "/open-api/v1" && basePath !== "/open-api") throw new OptionsError("--base-path must be /open-api/v1 or /open-api");
    const variants = list(parsed.variant);
    if (variants.some((v) => v !== "signed" && v !== "keyed")) throw new OptionsError("--variant must be signed or keyed");
    const secrets = appSecrets(parsed["app-secret"], io.env);
    const options: ConformanceOptions = {
      baseUrl: parsed["base-url"] ?? "",
      appKey: parsed["app-key"] ?? "",
      appSecret: secrets[0] ?? "",
      appSecrets: secrets.slice(1),
      ...receiverTls(parsed["receiver-cert"], parsed["receiver-key"]),
      ...(basePath && { basePath: basePath as "/open-api/v1" | "/open-api" }),
      merchantIds: list(parsed["merchant-id"]),
      ...(parsed["foreign-merchant-id"] && { foreignMerchantId: parsed["foreign-merchant-id"] }),
      ...((parsed["api-key"] ?? io.env.MOP_API_KEY) && { apiKey: parsed["api-key"] ?? io.env.MOP_API_KEY }),
      ...(variants.length && { variants: variants as Array<"signed" | "keyed"> }),
      include: list(parsed.include),
      exclude: list(parsed.exclude),
      strictHttp: Boolean(parsed["strict-http"]),
      ...(parsed.concurrency && { concurrency: number("concurrency", parsed.concurrency) }),
      ...(parsed.timeout && { timeoutMs: number("timeout", parsed.timeout) }),
      ...(parsed["rate-limit"] && { rateLimit: number("rate-limit", parsed["rate-limit"]) }),
      controlUrl: parsed["no-control"] ? false : parsed["control-url"],
      ...(parsed["notify-url"] && { notifyUrl: parsed["notify-url"] }),
      ...(parsed["receiver-host"] && { receiverHost: parsed["receiver-host"] }),
      ...(parsed["receiver-port"] && { receiverPort: number("receiver-port", parsed["receiver-port"]) }),
      ...(parsed["callback-wait"] && { callbackWaitMs: number("callback-wait", parsed["callback-wait"]) }),
    };
    const report = await runConformance(options, {
      onCheckStart: (check, done, total) => {
        if (io.isTTY) io.stdout(`\r\x1b[2K[${done}/${total}] ${check.name}`);
      },
      onCheckDone: (result, done, total) => {
        io.stdout(io.isTTY ? `\r\x1b[2K[${done}/${total}] ${resultLine(result)}\n` : `${resultLine(result)}\n`);
      },
    });
    io.stdout(textReport(report));
    for (const { format, file } of reports) {
      try {
        writeFileSync(file, format === "json" ? jsonReport(report) : junitReport(report));
      } catch (error) {
        throw new UsageError(`cannot write the ${format} report to ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { after: "", cause: error });
      }
    }
    return report.counts.failed > 0 ? 1 : 0;
  } catch (error) {
    // Exit 2 for both: the run could not start, which is not a contract break (exit 1).
    if (error instanceof OptionsError || error instanceof ConnectionError) throw new UsageError(error.message, { after: "", cause: error });
    throw error;
  }
};
