// What the dashboard never shows in full: a request's X-Sign (with the headers beside it, a
// whole signature is a request someone could replay within the window), the key of an
// Authorization header, a cookie, and any app secret that turns up in recorded text (a
// developer who pastes a secret into a body should not find it on a page).

/** The first characters of a signature: enough to tell two apart, far too few to reuse. */
export function maskSignature(sign: string): string {
  return sign.length <= 6 ? "•••" : `${sign.slice(0, 6)}… (${sign.length} characters, masked)`;
}

/** "Bearer demo-api-key" → "Bearer demo… (masked)". */
export function maskAuthorization(value: string): string {
  const match = /^(\S+)\s+(\S{0,4})/.exec(value);
  return match ? `${match[1]} ${match[2]}… (masked)` : "••• (masked)";
}

const MASKED_HEADERS: Readonly<Record<string, (value: string) => string>> = {
  "x-sign": maskSignature,
  authorization: maskAuthorization,
  "proxy-authorization": maskAuthorization,
  cookie: () => "••• (masked)",
};

/** The header's value as the dashboard may show it. */
export function maskHeader(name: string, value: string): string {
  const mask = MASKED_HEADERS[name.toLowerCase()];
  return mask ? mask(value) : value;
}

/** Replaces every occurrence of a secret (8 characters or more) in a text. */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 8 && out.includes(secret)) out = out.split(secret).join("••• (an app secret, masked)");
  return out;
}
