// npm run check:breaking [-- --release <version>]
// Compares generated/*.openapi.json with the newest releases/<version>/ and exits 1 on a
// breaking change unless the major version moved (policy: docs/versioning.md).
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { checkBreaking, formatReport } from "./lib/breaking/index.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const at = process.argv.indexOf("--release");
const release = at >= 0 ? process.argv[at + 1] : undefined;
if (at >= 0 && !release) {
  console.error("usage: check-breaking [--release <version>]");
  process.exit(2);
}

try {
  const result = checkBreaking(release ? { root, release } : { root });
  const report = formatReport(result);
  if (result.ok) console.log(report);
  else console.error(report);
  process.exit(result.ok ? 0 : 1);
} catch (error) {
  console.error(`check:breaking could not run: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(2);
}
