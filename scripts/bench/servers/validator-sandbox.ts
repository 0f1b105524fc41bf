// `mop sandbox --port 0 --quiet` from the sources, with express-openapi-validator either as the
// sandbox assembles it (src/server/validator.ts) or through its public middleware
// (servers/public-validator.ts), chosen by MOP_BENCH_VALIDATOR=assembly|public. Both variants
// run the same way (through tsx, with the same module hook installed) so that only the
// validator differs. Extra arguments are passed to `mop sandbox`.
import { register } from "node:module";
import { pathToFileURL } from "node:url";

const variant = process.env.MOP_BENCH_VALIDATOR ?? "assembly";
if (variant !== "assembly" && variant !== "public") throw new Error(`MOP_BENCH_VALIDATOR must be assembly or public, got ${variant}`);

// A resolve hook that hands the public variant to whoever imports src/server/validator.ts
// (only dispatch.ts does), except to the public variant itself, which reuses its options.
const HOOK = `
let replacement;
let swap;
export function initialize(data) { replacement = data.replacement; swap = data.swap; }
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const path = resolved.url.split("?")[0];
  if (swap && path.endsWith("/src/server/validator.ts") && !(context.parentURL ?? "").startsWith(replacement)) return { ...resolved, url: replacement };
  return resolved;
}`;
register(`data:text/javascript,${encodeURIComponent(HOOK)}`, {
  data: { replacement: pathToFileURL(new URL("./public-validator.ts", import.meta.url).pathname).href, swap: variant === "public" },
});

const { main } = await import("../../../src/cli/main.js");
const args = ["sandbox", "--port", "0", "--quiet", "--max-orders-per-app", "999999999", "--max-trades-per-app", "999999999", ...process.argv.slice(2)];
process.exitCode = await main(args);
