// Redocly decorator `contract/code-samples` (enabled per API in redocly.yaml, applied by
// `redocly bundle`, so by scripts/generate.ts): adds `x-codeSamples` to every operation of
// the bundled spec, a TypeScript call with this package's client and a curl command.
//
// One source of truth: the samples are built from the operation itself, its first request
// example (the body) and its parameters (their example, or a value of the same name in the
// spec's examples, or their default), so they cannot drift from the hand-written spec.
// test/contract/code-samples.test.ts type-checks every TypeScript sample and checks every
// curl sample's method, path and headers.
//
// Options (redocly.yaml): `interface: signed` (createSignedClient, the four X- signature
// headers) or `interface: keyed` (createKeyedClient, Authorization: Bearer).

const PACKAGE_NAME = "merchant-open-platform";
const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
// The Redoc panel shows about 60 characters; keep the TypeScript within 80.
const LINE_WIDTH = 80;

const INTERFACES = {
  signed: {
    factory: "createSignedClient",
    credentials: [
      ["appKey", "MOP_APP_KEY"],
      ["appSecret", "MOP_APP_SECRET"],
    ],
  },
  keyed: {
    factory: "createKeyedClient",
    credentials: [["apiKey", "MOP_API_KEY"]],
  },
};

// ---------------------------------------------------------------------------------------
// Rendering

/**
 * A TypeScript expression for a JSON value: unquoted keys where possible, on one line when
 * it fits (after `lead` characters already on the line), otherwise one member per line.
 */
export function tsLiteral(value, indent = "", lead = indent.length) {
  const inline = tsInline(value);
  if (lead + inline.length <= LINE_WIDTH || value === null || typeof value !== "object") return inline;
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    return `[\n${value.map((item) => `${inner}${tsLiteral(item, inner)},`).join("\n")}\n${indent}]`;
  }
  const lines = Object.entries(value).map(([key, item]) => {
    const head = `${inner}${tsKey(key)}: `;
    return `${head}${tsLiteral(item, inner, head.length)},`;
  });
  return `{\n${lines.join("\n")}\n${indent}}`;
}

function tsInline(value) {
  if (value === null || typeof value !== "object") return tsScalar(value);
  if (Array.isArray(value)) return `[${value.map(tsInline).join(", ")}]`;
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return `{ ${entries.map(([key, item]) => `${tsKey(key)}: ${tsInline(item)}`).join(", ")} }`;
}

function tsKey(key) {
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

function tsScalar(value) {
  if (typeof value === "number" && !Number.isSafeInteger(value) && Number.isInteger(value)) {
    throw new Error(`example value ${value} is above 2^53 - 1 and cannot be written exactly`);
  }
  return JSON.stringify(value);
}

/** Quotes one word for POSIX shells (as `mop sign --curl` does). */
export function shellQuote(word) {
  return `'${String(word).replace(/'/g, `'\\''`)}'`;
}

/** The TypeScript sample: the package's client, then `client.call(operationId, { params, body })`. */
export function typescriptSample({ iface, baseUrl, operationId, params, body }) {
  const { factory, credentials } = INTERFACES[iface];
  const lines = [
    `import { ${factory} } from "${PACKAGE_NAME}";`,
    "",
    "// baseUrl: the local sandbox (npx mop sandbox); in production the platform's.",
    `const client = ${factory}({`,
    `  baseUrl: ${JSON.stringify(baseUrl)},`,
    ...credentials.map(([option, variable]) => `  ${option}: process.env.${variable}!,`),
    "});",
    "",
    iface === "signed"
      ? "// Signs the request (X-App-Key, X-Timestamp, X-Nonce, X-Sign) and answers"
      : "// Sends Authorization: Bearer <apiKey> and answers",
    "// the envelope's data; an error code throws ApiError (code, errorName, meaning).",
  ];
  const parts = [];
  if (params) parts.push(`  params: ${tsLiteral(params, "  ", "  params: ".length)},`);
  if (body !== undefined) parts.push(`  body: ${tsLiteral(body, "  ", "  body: ".length)},`);
  if (parts.length === 0) {
    lines.push(`const data = await client.call(${JSON.stringify(operationId)});`);
  } else {
    lines.push(`const data = await client.call(${JSON.stringify(operationId)}, {`, ...parts, "});");
  }
  lines.push("console.log(data);", "");
  return lines.join("\n");
}

/** The curl sample: the signature computed in the shell (or by `npx mop sign --curl`), then the request. */
export function curlSample({ iface, method, url, params, body, secured }) {
  const verb = method.toUpperCase();
  const json = body === undefined ? undefined : JSON.stringify(body);
  const lines = [];
  const headers = [];
  if (json !== undefined) headers.push(shellQuote("Content-Type: application/json"));
  for (const [name, value] of Object.entries(params?.header ?? {})) headers.push(shellQuote(`${name}: ${value}`));
  if (secured && iface === "signed") {
    if (json !== undefined) lines.push(`BODY=${shellQuote(json)}`);
    lines.push(
      "# MOP_APP_KEY, MOP_APP_SECRET: the app's key and secret.",
      json === undefined
        ? "# X-Sign = Base64(HMAC-SHA256(secret, X-App-Key + X-Timestamp + X-Nonce)): no body."
        : "# X-Sign = Base64(HMAC-SHA256(secret, X-App-Key + X-Timestamp + X-Nonce + BODY)),",
      ...(json === undefined ? [] : ["# over the exact bytes sent: send BODY as signed (compact JSON)."]),
      "# Or let the package print the whole command with fresh headers:",
      `#   npx mop sign --app-key "$MOP_APP_KEY" --app-secret "$MOP_APP_SECRET" \\`,
      `#     ${json === undefined ? "" : '--body "$BODY" '}${verb === (json === undefined ? "GET" : "POST") ? "" : `--method ${verb} `}--curl ${shellQuote(url)}`,
      "X_TIMESTAMP=$(date +%s)          # Unix seconds: within 300 s of the server",
      "X_NONCE=$(openssl rand -hex 16)  # fresh for every request",
      `X_SIGN=$(printf '%s' "$MOP_APP_KEY$X_TIMESTAMP$X_NONCE${json === undefined ? "" : "$BODY"}" \\`,
      `  | openssl dgst -sha256 -hmac "$MOP_APP_SECRET" -binary | base64)`,
      "",
    );
    headers.push(`"X-App-Key: $MOP_APP_KEY"`, `"X-Timestamp: $X_TIMESTAMP"`, `"X-Nonce: $X_NONCE"`, `"X-Sign: $X_SIGN"`);
  } else if (secured && iface === "keyed") {
    lines.push("# MOP_API_KEY: the account's API key, sent as a bearer token.");
    headers.push(`"Authorization: Bearer $MOP_API_KEY"`);
  }
  const command = [`curl -X ${verb} ${shellQuote(url)}`, ...headers.map((header) => `-H ${header}`)];
  if (json !== undefined) command.push(secured && iface === "signed" ? `--data-binary "$BODY"` : `--data-binary ${shellQuote(json)}`);
  lines.push(`${command.join(" \\\n  ")}`, "");
  return lines.join("\n");
}

/** The URL of one request: the server, the path with its path parameters, the query string. */
export function requestUrl(serverUrl, path, params) {
  const filled = path.replace(/\{([^}]+)\}/g, (whole, name) => {
    const value = params?.path?.[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name} of ${path}`);
    return encodeURIComponent(String(value));
  });
  const query = Object.entries(params?.query ?? {})
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join("&");
  return `${serverUrl.replace(/\/+$/, "")}${filled}${query ? `?${query}` : ""}`;
}

/** servers[0].url with its variables at their defaults. */
export function serverUrlOf(root) {
  const server = Array.isArray(root.servers) ? root.servers[0] : undefined;
  if (!server || typeof server.url !== "string") return "http://127.0.0.1:4010";
  return server.url.replace(/\{([^}]+)\}/g, (whole, name) => {
    const variable = server.variables?.[name];
    return variable && variable.default !== undefined ? String(variable.default) : whole;
  });
}

// ---------------------------------------------------------------------------------------
// Reading the unbundled spec through Redocly's resolver

/** Follows $ref chains; answers the node and the file it lives in (for its own relative refs). */
function deref(ctx, node, from) {
  let current = node;
  let base = from;
  for (let hops = 0; current && typeof current === "object" && typeof current.$ref === "string"; hops++) {
    if (hops > 20) throw new Error(`$ref chain too long at ${current.$ref}`);
    const resolved = ctx.resolve(current, base);
    if (resolved.node === undefined) throw new Error(`cannot resolve ${current.$ref} from ${base}`);
    current = resolved.node;
    base = resolved.location.source.absoluteRef;
  }
  return { node: current, from: base };
}

/** Every example value of a media-type map (content), resolving $refs. */
function contentExamples(ctx, content, from) {
  const values = [];
  if (!content || typeof content !== "object") return values;
  for (const mediaNode of Object.values(content)) {
    const media = deref(ctx, mediaNode, from);
    if (!media.node || typeof media.node !== "object") continue;
    if (media.node.examples && typeof media.node.examples === "object") {
      for (const exampleNode of Object.values(media.node.examples)) {
        const example = deref(ctx, exampleNode, media.from).node;
        if (example && "value" in example) values.push(example.value);
      }
    }
    if ("example" in media.node) values.push(media.node.example);
  }
  return values;
}

/** The example values of one operation: request bodies, then responses. */
function operationExamples(ctx, operation, from) {
  const values = [];
  if (operation.requestBody) {
    const body = deref(ctx, operation.requestBody, from);
    values.push(...contentExamples(ctx, body.node?.content, body.from));
  }
  for (const responseNode of Object.values(operation.responses ?? {})) {
    const response = deref(ctx, responseNode, from);
    values.push(...contentExamples(ctx, response.node?.content, response.from));
  }
  return values;
}

/** Adds every scalar property of the values to the index, first occurrence wins. */
function indexScalars(values, index) {
  const stack = [...values].reverse();
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      stack.push(...[...value].reverse());
    } else if (value && typeof value === "object") {
      const entries = Object.entries(value);
      for (const [key, item] of entries) {
        if (item !== null && typeof item !== "object" && !index.has(key)) index.set(key, item);
      }
      stack.push(...entries.map(([, item]) => item).reverse());
    }
  }
  return index;
}

/** Property name -> first scalar example value, over every operation and webhook of the spec. */
function documentIndex(ctx, root, from) {
  const index = new Map();
  for (const map of [root.paths, root.webhooks]) {
    for (const itemNode of Object.values(map ?? {})) {
      const item = deref(ctx, itemNode, from);
      for (const method of HTTP_METHODS) {
        if (item.node?.[method]) indexScalars(operationExamples(ctx, item.node[method], item.from), index);
      }
    }
  }
  return index;
}

function typeOf(schema) {
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  return typeof type === "string" ? type : undefined;
}

function fits(schema, value) {
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  switch (typeOf(schema)) {
    case "integer":
      return Number.isSafeInteger(value);
    case "number":
      return typeof value === "number";
    case "string":
      return typeof value === "string" && (typeof schema.pattern !== "string" || new RegExp(schema.pattern, "u").test(value));
    case "boolean":
      return typeof value === "boolean";
    default:
      return value !== null && typeof value !== "object";
  }
}

/**
 * The value a sample passes for a parameter: its own example, its schema's example, a value of
 * the same name in this operation's examples or the spec's, its default, its first enum value,
 * its minimum. Optional parameters appear only with an example or a default.
 */
function parameterValue(parameter, schema, local, global) {
  if ("example" in parameter) return { value: parameter.example };
  const examples = parameter.examples && Object.values(parameter.examples);
  if (examples && examples[0] && "value" in examples[0]) return { value: examples[0].value };
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return { value: schema.examples[0] };
  if ("example" in schema) return { value: schema.example };
  if (parameter.required) {
    for (const index of [local, global]) {
      if (index.has(parameter.name) && fits(schema, index.get(parameter.name))) return { value: index.get(parameter.name) };
    }
  }
  if ("default" in schema) return { value: schema.default };
  if (!parameter.required) return undefined;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return { value: schema.enum[0] };
  switch (typeOf(schema)) {
    case "integer":
    case "number":
      return { value: typeof schema.minimum === "number" ? schema.minimum : 1 };
    case "boolean":
      return { value: true };
    default:
      return { value: parameter.name };
  }
}

/** { path: {...}, query: {...} } of an operation (path-item parameters first, overridden by the operation's). */
function operationParams(ctx, pathItem, operation, from, local, global) {
  const byKey = new Map();
  for (const [list, base] of [
    [pathItem.node.parameters, pathItem.from],
    [operation.parameters, from],
  ]) {
    for (const node of list ?? []) {
      const parameter = deref(ctx, node, base);
      const p = parameter.node;
      if (!p || typeof p !== "object") continue;
      byKey.set(`${p.in}:${p.name}`, { parameter: p, schema: deref(ctx, p.schema ?? {}, parameter.from).node ?? {} });
    }
  }
  const params = {};
  for (const { parameter, schema } of byKey.values()) {
    if (parameter.in === "cookie") continue;
    const chosen = parameterValue(parameter, schema, local, global);
    if (!chosen) continue;
    (params[parameter.in] ??= {})[parameter.name] = chosen.value;
  }
  const ordered = {};
  for (const location of ["path", "query", "header"]) if (params[location]) ordered[location] = params[location];
  return Object.keys(ordered).length > 0 ? ordered : undefined;
}

/** The first example of the JSON request body, or undefined without a body. */
function requestBodyExample(ctx, operation, from) {
  if (!operation.requestBody) return { present: false };
  const body = deref(ctx, operation.requestBody, from);
  const media = body.node?.content?.["application/json"];
  if (!media) return { present: false };
  const values = contentExamples(ctx, { "application/json": media }, body.from);
  return values.length > 0 ? { present: true, value: values[0] } : { present: true };
}

// ---------------------------------------------------------------------------------------
// The decorator

export function CodeSamples(options = {}) {
  const iface = options.interface;
  if (!INTERFACES[iface]) {
    throw new Error(`contract/code-samples: set interface to one of ${Object.keys(INTERFACES).join(", ")} in redocly.yaml, got ${JSON.stringify(iface)}`);
  }
  let serverUrl = "";
  let global = new Map();
  let rootSecurity;
  let pathItem;
  let inWebhooks = false;

  return {
    Root: {
      enter(root, ctx) {
        serverUrl = serverUrlOf(root);
        rootSecurity = root.security;
        global = documentIndex(ctx, root, ctx.location.source.absoluteRef);
      },
    },
    WebhooksMap: {
      enter() {
        inWebhooks = true;
      },
      leave() {
        inWebhooks = false;
      },
    },
    PathItem: {
      enter(node, ctx) {
        pathItem = { path: String(ctx.key), node, from: ctx.location.source.absoluteRef };
      },
    },
    Operation: {
      // enter: the parameters' $refs are still those of the hand-written files.
      enter(operation, ctx) {
        if (inWebhooks || !pathItem || !String(pathItem.path).startsWith("/")) return;
        const method = String(ctx.key);
        const from = ctx.location.source.absoluteRef;
        const where = `${method.toUpperCase()} ${pathItem.path}`;
        if (typeof operation.operationId !== "string") return; // operation-operationId reports it
        try {
          const local = indexScalars(operationExamples(ctx, operation, from), new Map());
          const params = operationParams(ctx, pathItem, operation, from, local, global);
          const body = requestBodyExample(ctx, operation, from);
          if (body.present && body.value === undefined) {
            ctx.report({ message: `${where} has a JSON request body without an example to build its code samples from.`, location: ctx.location.child(["requestBody"]) });
            return;
          }
          const security = operation.security ?? rootSecurity;
          const secured = Array.isArray(security) && security.length > 0;
          const sample = { iface, operationId: operation.operationId, params, body: body.value };
          operation["x-codeSamples"] = [
            { lang: "TypeScript", label: "TypeScript", source: typescriptSample({ ...sample, baseUrl: serverUrl }) },
            { lang: "curl", label: "curl", source: curlSample({ iface, method, url: requestUrl(serverUrl, pathItem.path, params), params, body: body.value, secured }) },
          ];
        } catch (error) {
          ctx.report({ message: `${where}: cannot build code samples: ${error.message}`, location: ctx.location });
        }
      },
    },
  };
}
