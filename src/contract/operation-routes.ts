// Which operation a request reaches, from its method and its full path, by the spec's own
// servers (/open-api/v1 and /open-api for the signed spec). A server needs this before the
// validator routes the request: the signature check refuses a body sent to an operation that
// takes none (DESIGN item 15) before the body is read and before the nonce is recorded.
import type { SpecName } from "./bundles.js";
import { RouteTable } from "./routes.js";
import { schemasFor } from "./schemas.js";

export interface OperationRoute {
  operationId: string;
  /** The path template inside the server's base path, e.g. "/merchants". */
  path: string;
  /** Whether the operation has a request body in the spec. */
  takesBody: boolean;
}

export type OperationRouteLookup = (method: string, path: string) => OperationRoute | undefined;

/** The path part of each server URL, longest first ("/open-api/v1" before "/open-api"). */
function serverBasePaths(servers: unknown): string[] {
  const paths = new Set<string>();
  for (const server of Array.isArray(servers) ? servers : []) {
    const url = typeof server?.url === "string" ? server.url.replace(/\{[^}]*\}/g, "host") : "";
    let pathname: string;
    try {
      pathname = new URL(url, "http://host").pathname;
    } catch {
      continue;
    }
    paths.add(pathname.replace(/\/+$/, "").toLowerCase());
  }
  return [...paths].sort((a, b) => b.length - a.length);
}

const lookups = new Map<SpecName, OperationRouteLookup>();

/**
 * The operation a method and a full request path (no query) reach, or undefined when none does.
 * Matched as Express routes them: letters of any case, one trailing "/" allowed.
 */
export function operationRoutes(name: SpecName): OperationRouteLookup {
  let lookup = lookups.get(name);
  if (lookup) return lookup;
  const schemas = schemasFor(name);
  const bases = serverBasePaths(schemas.spec.servers);
  const table = new RouteTable(schemas.operations.values(), { caseInsensitive: true, trailingSlash: true });
  lookup = (method, path) => {
    const lower = path.toLowerCase();
    for (const base of bases) {
      if (lower !== base && !lower.startsWith(`${base}/`)) continue;
      const match = table.match(method, path.slice(base.length) || "/");
      if (match === undefined || match === "method") continue;
      return { operationId: match.operationId, path: match.path, takesBody: schemas.requestBodySchemaPointer(match.operationId) !== undefined };
    }
    return undefined;
  };
  lookups.set(name, lookup);
  return lookup;
}
