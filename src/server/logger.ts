// What the kit logs: only what a server operator must see (an internal error, an answer that
// broke the spec). Request lines are the application's business (any middleware before the
// router); a sandbox logger or a pino logger's `error` fits this shape.
export interface ServerLogger {
  error(message: string, details?: Record<string, unknown>): void;
}

/** The default: internal errors to stderr as one JSON line each. */
export const stderrLogger: ServerLogger = {
  error(message, details) {
    process.stderr.write(`${JSON.stringify({ level: "error", message, ...details }, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value instanceof Error ? { name: value.name, message: value.message, stack: value.stack } : value))}\n`);
  },
};
