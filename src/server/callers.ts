// Who may call: the apps of the signed interface and the accounts of the key-based one, as the
// kit's lookups give them. Types only, so that every step may name them.

/** An application as the signed interface's checks see it. */
export interface ServerApp {
  /** Its secrets, newest first; several while a secret is being rotated. */
  readonly appSecrets: readonly string[];
  /** The merchants authorised for the app (handlers check them; the kit does not). */
  readonly merchantIds?: readonly bigint[];
  /** Module permissions, e.g. "merchant-module" (handlers check them). */
  readonly permissions?: readonly string[];
  /** Requests per second allowed for the app (100006 above it); none when undefined. */
  readonly rateLimitPerSecond?: number;
}

/** App key → the app, or undefined for an unknown or disabled one (100002). May be async (a database). */
export type AppLookup<App extends ServerApp = ServerApp> = (appKey: string) => App | undefined | Promise<App | undefined>;

/** A key-based caller: an account's API key. */
export interface ApiKeyAccount {
  readonly rateLimitPerSecond?: number;
}

/** API key → the account, or undefined for an unknown or revoked key (401). */
export type ApiKeyLookup = (apiKey: string) => ApiKeyAccount | undefined;
