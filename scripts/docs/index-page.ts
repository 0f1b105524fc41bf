// The site's front page: one list of the API references, one of the guides.
import type { Guide } from "./guides.js";
import { escapeHtml, page } from "./page.js";

export interface ReferenceEntry {
  /** Spec name, e.g. "signed"; the page is <name>.html. */
  name: string;
  title: string;
  version: string;
  summary: string;
  operations: number;
  webhooks: number;
}

function referenceItem(ref: ReferenceEntry): string {
  const counts = [`${ref.operations} operation${ref.operations === 1 ? "" : "s"}`];
  if (ref.webhooks > 0) counts.push(`${ref.webhooks} callback${ref.webhooks === 1 ? "" : "s"}`);
  return `<li><a href="${escapeHtml(ref.name)}.html">${escapeHtml(ref.title)}</a> <span class="muted">(version ${escapeHtml(ref.version)}; ${counts.join(", ")})</span>
<br>${escapeHtml(ref.summary)}
<br><span class="muted">Bundled spec: <code>generated/${escapeHtml(ref.name)}.openapi.json</code> and <code>.yaml</code></span></li>`;
}

function guideItem(guide: Guide): string {
  return `<li><a href="guides/${escapeHtml(guide.name)}.html">${escapeHtml(guide.title)}</a> <span class="muted">(docs/${escapeHtml(guide.name)}.md)</span></li>`;
}

export function indexPage(references: ReferenceEntry[], guides: Guide[], version: string): string {
  const body = `<h1>Merchant Open Platform</h1>
<p>The contract of the Merchant Open Platform API, version ${escapeHtml(version)}: API references rendered from the OpenAPI specs, and the guides.</p>
<section aria-labelledby="references">
<h2 id="references">API references</h2>
<ul class="cards">
${references.map(referenceItem).join("\n")}
</ul>
</section>
<section aria-labelledby="guides">
<h2 id="guides">Guides</h2>
<ul>
${guides.map(guideItem).join("\n")}
</ul>
</section>`;
  return page({ title: "Merchant Open Platform — API docs", body, root: "", current: "index.html" });
}
