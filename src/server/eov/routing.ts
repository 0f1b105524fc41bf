// Route lookup for express-openapi-validator (EOV): EOV's applyOpenApiMetadata with each route's
// regular expression compiled once. EOV 5.6's metadata middleware compiles every route of the
// spec with path-to-regexp on every request until one matches (36 routes in the signed spec: most
// of what the public middleware costs more, in the profiles); here the same routes (OpenApiContext's
// expressRouteMap, openApiRouteMap, routePair, shouldIgnoreRoute, isManagedRoute; types.js's
// BadRequest, MethodNotAllowed, NotFound; the path-to-regexp EOV resolves) are compiled once per
// routing mode and tried in the same order with the same options, for the same metadata and
// errors, and the outcome per path is remembered (10,000 paths at most). Goes when EOV caches its
// compiled route matchers: cdimascio/express-openapi-validator#1217 ("perf: cache route matchers", open).
import type { Request } from "express";
import { BadRequest, contextInternals, httpMethods, MethodNotAllowed, NotFound, pathToRegexp, setOpenApiMetadata, type OpenApiContext, type OpenApiRequestMetadata, type Paths } from "./internals.js";

interface RouteEntry {
  expressRoute: string;
  openApiRoute: string;
  pathKey: string;
}

interface CompiledRoute extends RouteEntry {
  regexp: RegExp;
  keys: string[];
}

/**
 * EOV's applyOpenApiMetadata (5.6.2) with each route's regular expression compiled once per
 * routing mode (strict / case-sensitive) instead of on every request.
 */
export function metadataStep(context: OpenApiContext, responseApiDoc: { paths: Paths } | undefined) {
  const internals = contextInternals(context);
  // Object.entries order, as EOV walks expressRouteMap.
  const entries: RouteEntry[] = Object.entries(internals.expressRouteMap).map(([expressRoute, methods]) => {
    const pair = context.routePair(expressRoute);
    return { expressRoute, openApiRoute: pair.openApiRoute, pathKey: pair.openApiRoute.substring(methods.basePath.length) };
  });
  const compiled = new Map<string, CompiledRoute[]>();
  const routesFor = (sensitive: boolean, strict: boolean): CompiledRoute[] => {
    const mode = `${sensitive}/${strict}`;
    let routes = compiled.get(mode);
    if (!routes) {
      routes = entries.map((entry) => {
        const { regexp, keys } = pathToRegexp(entry.expressRoute, { sensitive, strict });
        return { ...entry, regexp, keys: keys.map((key) => key.name) };
      });
      compiled.set(mode, routes);
    }
    return routes;
  };

  // The route and decoded parameters of a path, per routing mode; bounded (paths carry ids).
  type Found = { route: CompiledRoute; values: string[] } | "none" | "malformed";
  const found = new Map<string, Found>();
  const FOUND_LIMIT = 10_000;

  function find(routes: CompiledRoute[], path: string, mode: string): Found {
    const key = `${mode}\n${path}`;
    let result = found.get(key);
    if (result === undefined) {
      result = "none";
      for (const route of routes) {
        const matched = route.regexp.exec(path);
        if (!matched) continue;
        try {
          result = { route, values: matched.slice(1).map((value) => decodeURIComponent(value)) };
        } catch {
          result = "malformed";
        }
        break;
      }
      if (found.size >= FOUND_LIMIT) found.clear();
      found.set(key, result);
    }
    return result;
  }

  function lookupRoute(req: Request) {
    const path = (context.useRequestUrl ? req.url : req.originalUrl).split("?")[0] ?? "";
    const method = req.method.toLowerCase();
    const sensitive = !!req.app.enabled("case sensitive routing");
    const strict = !!req.app.enabled("strict routing");
    const result = find(routesFor(sensitive, strict), path, `${sensitive}/${strict}`);
    if (result === "none") return null;
    if (result === "malformed") throw new BadRequest({ path: req.path, message: "malformed uri'" });
    const { route, values } = result;
    // A fresh object each time: the request validator coerces path parameters in place.
    const pathParams: Record<string, string> = {};
    route.keys.forEach((key, i) => (pathParams[key] = values[i] as string));
    return {
      schema: internals.apiDoc.paths[route.pathKey]?.[method],
      responseSchema: responseApiDoc?.paths[route.pathKey]?.[method],
      expressRoute: route.expressRoute,
      openApiRoute: route.openApiRoute,
      pathParams,
    };
  }

  return (req: Request): void => {
    const path = req.path.startsWith(req.baseUrl) ? req.path : `${req.baseUrl}/${req.path}`;
    if (context.shouldIgnoreRoute(path)) return;
    const matched = lookupRoute(req);
    if (matched) {
      if (!matched.schema) {
        if (context.ignoreUndocumented) return;
        throw new MethodNotAllowed({
          path: req.path,
          message: `${req.method} method not allowed`,
          headers: {
            Allow: Object.keys(internals.openApiRouteMap[matched.openApiRoute] ?? {})
              .filter((key) => httpMethods.has(key.toLowerCase()))
              .join(", "),
          },
        });
      }
      const openapi: OpenApiRequestMetadata = {
        expressRoute: matched.expressRoute,
        openApiRoute: matched.openApiRoute,
        pathParams: matched.pathParams,
        schema: matched.schema as OpenApiRequestMetadata["schema"],
        serial: context.serial,
      };
      if (responseApiDoc) openapi._responseSchema = matched.responseSchema;
      setOpenApiMetadata(req, openapi);
      req.params = matched.pathParams;
    } else if (context.isManagedRoute(path) && !context.ignoreUndocumented) {
      throw new NotFound({ path: req.path, message: "not found" });
    }
  };
}

