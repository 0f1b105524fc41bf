// Header handling of a reverse proxy (RFC 9110 §7.6.1): hop-by-hop headers, and any header the
// Connection header names, stay on their hop; every other header passes in its original case,
// order and repetition (Node's rawHeaders), so what the server receives is what the client sent.
// Content-Length is set from the bytes actually forwarded, because bodies are read whole.

const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade", "expect"]);

/** Pairs of [name, value] from Node's flat rawHeaders list. */
export type HeaderPairs = [string, string][];

export function pairsOf(rawHeaders: readonly string[]): HeaderPairs {
  const pairs: HeaderPairs = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) pairs.push([rawHeaders[i]!, rawHeaders[i + 1]!]);
  return pairs;
}

function connectionTokens(pairs: HeaderPairs): Set<string> {
  const tokens = new Set<string>();
  for (const [name, value] of pairs) {
    if (name.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) if (token.trim()) tokens.add(token.trim().toLowerCase());
  }
  return tokens;
}

/** The end-to-end headers: hop-by-hop ones, those Connection names, and `drop` removed. */
export function endToEnd(pairs: HeaderPairs, drop: readonly string[] = []): HeaderPairs {
  const named = connectionTokens(pairs);
  const dropped = new Set(drop.map((name) => name.toLowerCase()));
  return pairs.filter(([name]) => {
    const lower = name.toLowerCase();
    return !HOP_BY_HOP.has(lower) && !named.has(lower) && !dropped.has(lower);
  });
}

export function flatten(pairs: HeaderPairs): string[] {
  return pairs.flat();
}

/** The value of a header in pairs (first occurrence), case-insensitively. */
export function headerValue(pairs: HeaderPairs, name: string): string | undefined {
  const wanted = name.toLowerCase();
  return pairs.find(([key]) => key.toLowerCase() === wanted)?.[1];
}
