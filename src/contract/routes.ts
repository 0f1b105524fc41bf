// Path templates of the spec as regular expressions, compiled once, and the route table that
// finds an operation by method and path. Literal paths win over templated ones
// (/stores/nearby before /stores/{storeId}), as OpenAPI requires. Paths are matched as sent:
// nothing is normalised, and a path parameter with broken percent-encoding is reported, not thrown.
import type { OperationLocation } from "./schemas.js";

export interface PathTemplateOptions {
  /** Match letters of any case (Express's default routing); default false. */
  caseInsensitive?: boolean;
  /** Accept one trailing "/" (Express's non-strict routing); default false. */
  trailingSlash?: boolean;
  /** Text that comes before the template, e.g. a server's base path "/open-api/v1". */
  prefix?: string;
}

export interface PathTemplate {
  regexp: RegExp;
  /** Parameter names in order of appearance. */
  names: string[];
  /** Literal segments: more of them is a more specific route. */
  literalSegments: number;
}

const ESCAPE = /[.*+?^${}()|[\]\\]/g;

export function compilePathTemplate(template: string, options: PathTemplateOptions = {}): PathTemplate {
  const names: string[] = [];
  const source = `${options.prefix ?? ""}${template}`
    .split(/(\{[^}/]+\})/)
    .map((part) => {
      const param = /^\{([^}/]+)\}$/.exec(part);
      if (!param) return part.replace(ESCAPE, "\\$&");
      names.push(param[1] as string);
      return "([^/]+)";
    })
    .join("");
  return {
    regexp: new RegExp(`^${source}${options.trailingSlash ? "/?" : ""}$`, options.caseInsensitive ? "i" : ""),
    names,
    literalSegments: template.split("/").filter((segment) => segment && !segment.startsWith("{")).length,
  };
}

/** Path parameters of a matched template, percent-decoded; undecodable ones kept raw and named. */
export function readPathParams(template: PathTemplate, matched: RegExpExecArray): { pathParams: Record<string, string>; undecodable: string[] } {
  const pathParams: Record<string, string> = {};
  const undecodable: string[] = [];
  template.names.forEach((name, i) => {
    const raw = matched[i + 1] ?? "";
    try {
      pathParams[name] = decodeURIComponent(raw);
    } catch {
      undecodable.push(name);
      pathParams[name] = raw;
    }
  });
  return { pathParams, undecodable };
}

export interface RouteMatch {
  operationId: string;
  /** The path template, e.g. "/stores/{storeId}". */
  path: string;
  pathParams: Record<string, string>;
  /** Path parameters whose percent-encoding does not decode (e.g. "%ff"). */
  undecodable: string[];
}

interface Route extends PathTemplate {
  method: string;
  operationId: string;
  path: string;
}

export class RouteTable {
  private readonly routes: Route[];

  constructor(operations: Iterable<OperationLocation>, options: PathTemplateOptions = {}) {
    this.routes = [...operations]
      .map((op) => ({ ...compilePathTemplate(op.path, options), method: op.method.toUpperCase(), operationId: op.operationId, path: op.path }))
      .sort((a, b) => b.literalSegments - a.literalSegments);
  }

  /** The operation for method + path, "method" when only the method is wrong, or undefined. */
  match(method: string, path: string): RouteMatch | "method" | undefined {
    let pathKnown = false;
    const wanted = method.toUpperCase();
    for (const route of this.routes) {
      const found = route.regexp.exec(path);
      if (!found) continue;
      pathKnown = true;
      if (route.method !== wanted) continue;
      return { operationId: route.operationId, path: route.path, ...readPathParams(route, found) };
    }
    return pathKnown ? "method" : undefined;
  }

  /** The methods the spec has for a path (for an Allow header); empty when the path is unknown. */
  allowedMethods(path: string): string[] {
    return [...new Set(this.routes.filter((route) => route.regexp.test(path)).map((route) => route.method))];
  }
}
