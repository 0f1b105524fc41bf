// /docs: the rendered reference when it has been built (docs/site), else a small index of the
// bundled specs, which are served here too so any OpenAPI tool can load them from the sandbox.
import { existsSync } from "node:fs";
import { join } from "node:path";
import express, { type Router } from "express";
import { packageRoot } from "../../util/package-root.js";
import { escapeHtml, PAGE_HEADERS } from "../cashier-page.js";
import { DOCS_SECURITY_HEADERS } from "../security-headers.js";
import { bundlePath, type SpecName } from "../../contract/index.js";
import { requestState } from "../../server/index.js";

const SPECS: { name: SpecName; title: string }[] = [
  { name: "signed", title: "Signed open interface (/open-api/v1)" },
  { name: "keyed", title: "Key-based interface (/v1)" },
  { name: "sandbox-control", title: "Sandbox control API (/sandbox)" },
];

function indexPage(): string {
  const items = SPECS.map(({ name, title }) => `<li>${escapeHtml(title)}: <a href="/docs/specs/${name}.openapi.json">${name}.openapi.json</a></li>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Merchant Open Platform sandbox – docs</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}</style></head>
<body><main>
<h1>Merchant Open Platform sandbox</h1>
<p>The rendered reference is not built in this copy of the package (<code>npm run docs</code> writes it to <code>docs/site</code>, which the sandbox then serves here). The bundled specs:</p>
<ul>
${items}
</ul>
<p>How to use the sandbox: <code>docs/sandbox.md</code> in the package.</p>
</main></body></html>
`;
}

export function docsRouter(): Router {
  const router = express.Router();
  router.use((_req, res, next) => {
    res.set(DOCS_SECURITY_HEADERS);
    next();
  });
  const site = join(packageRoot(), "docs", "site");
  for (const { name } of SPECS) {
    router.get(`/specs/${name}.openapi.json`, (_req, res) => {
      requestState(res).operationId = "docsSpec";
      res.type("application/json").sendFile(bundlePath(name));
    });
  }
  if (existsSync(join(site, "index.html"))) {
    router.use(express.static(site));
  } else {
    router.get("/", (_req, res) => {
      requestState(res).operationId = "docsIndex";
      res.set(PAGE_HEADERS).type("html").send(indexPage());
    });
  }
  return router;
}
