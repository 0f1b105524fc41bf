// Arazzo workflow documents (openapi/workflows/*.arazzo.yaml) ship next to the bundled specs:
// generated/<name>.arazzo.yaml is the same document with each source description pointed at the
// bundle beside it (../signed/openapi.yaml → ./signed.openapi.json), so it runs from generated/
// and from the installed package alike.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseDocument } from "yaml";

const SOURCE = /^\.\.\/([a-z-]+)\/openapi\.yaml$/;

export function bundledWorkflows(workflowsDir: string, header: string): [file: string, content: string][] {
  let names: string[];
  try {
    names = readdirSync(workflowsDir).filter((name) => name.endsWith(".arazzo.yaml")).sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    const document = parseDocument(readFileSync(join(workflowsDir, name), "utf8"));
    const sources = document.toJS().sourceDescriptions as { name: string; url: string }[];
    sources.forEach((source, index) => {
      const spec = SOURCE.exec(source.url)?.[1];
      if (!spec) throw new Error(`${name}: sourceDescriptions[${index}].url ${JSON.stringify(source.url)} is not ../<spec>/openapi.yaml`);
      document.setIn(["sourceDescriptions", index, "url"], `./${spec}.openapi.json`);
    });
    return [name, header + document.toString({ lineWidth: 0 })];
  });
}
