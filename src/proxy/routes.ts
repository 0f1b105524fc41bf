// Finds the operation of a request path in a spec: literal paths win over templated ones
// (/stores/nearby before /stores/{storeId}), as OpenAPI requires. Paths are matched as sent:
// nothing is normalised, and a path parameter with broken percent-encoding is reported, not thrown.
import type { SpecSchemas } from "../conformance/spec.js";

export interface RouteMatch {
  operationId: string;
  pathParams: Record<string, string>;
  /** Path parameters whose percent-encoding does not decode (e.g. "%ff"). */
  undecodable: string[];
}

interface Route {
  method: string;
  regex: RegExp;
  names: string[];
  operationId: string;
  literalSegments: number;
}

export class RouteTable {
  private readonly routes: Route[];

  constructor(schemas: SpecSchemas) {
    this.routes = [...schemas.operations.values()]
      .map((op) => {
        const names: string[] = [];
        const pattern = op.path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\\?\{(\w+)\\?\}/g, (_m, name: string) => {
          names.push(name);
          return "([^/]+)";
        });
        return { method: op.method, regex: new RegExp(`^${pattern}$`), names, operationId: op.operationId, literalSegments: op.path.split("/").filter((s) => s && !s.startsWith("{")).length };
      })
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The operation for method + path, "method" when only the method is wrong, or undefined. */
  match(method: string, path: string): RouteMatch | "method" | undefined {
    let pathKnown = false;
    for (const route of this.routes) {
      const found = route.regex.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (route.method !== method.toUpperCase()) continue;
      const pathParams: Record<string, string> = {};
      const undecodable: string[] = [];
      route.names.forEach((name, i) => {
        const raw = found[i + 1]!;
        try {
          pathParams[name] = decodeURIComponent(raw);
        } catch {
          undecodable.push(name);
          pathParams[name] = raw;
        }
      });
      return { operationId: route.operationId, pathParams, undecodable };
    }
    return pathKnown ? "method" : undefined;
  }
}
