// npm run docs: renders the offline docs site into docs/site/ (git-ignored).
//   docs/site/{signed,keyed,sandbox-control}.html  API references (Redoc, bundle inlined)
//   docs/site/guides/<name>.html                   docs/*.md rendered with marked
//   docs/site/index.html                           links to all of them
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSite } from "./site.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

try {
  const result = await buildSite({ root });
  for (const [what, ms] of Object.entries(result.timings)) console.log(`  ${what}: ${ms} ms`);
  console.log(
    `docs: ${result.references.length} references and ${result.guides.length} guides in ${relative(root, result.outDir)}/ ` +
      `(${result.totalMs} ms); open ${relative(root, result.outDir)}/index.html`,
  );
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
