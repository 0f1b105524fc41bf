// A throwaway PostgreSQL cluster for tests and benchmarks: Debian's initdb and postgres (the
// postgresql package; .ci/run installs it) on a free loopback port, in a temporary directory,
// never a shared server. Run as the postgres user when this process is root (initdb refuses
// root), with password authentication over TCP so that a URL carries a password as in
// production. pg_ctl starts and stops it, so a test can take the server away and bring it back.
import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PASSWORD = "mop-test-secret";
const ROOT = process.getuid?.() === 0;

/** The newest Debian PostgreSQL's binaries (/usr/lib/postgresql/<version>/bin), or undefined. */
function binDir(): string | undefined {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return undefined;
  const versions = readdirSync(base)
    .filter((entry) => /^\d+$/.test(entry) && existsSync(join(base, entry, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(base, versions[0], "bin");
}

function postgresUser(): { uid: number; gid: number } | undefined {
  const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  return id.status === 0 && gid.status === 0 ? { uid: Number(id.stdout.trim()), gid: Number(gid.stdout.trim()) } : undefined;
}

/** Why no cluster can be started here, or undefined when one can. */
export function postgresServerMissing(): string | undefined {
  if (binDir() === undefined) return "PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)";
  if (ROOT && postgresUser() === undefined) return "running as root, and there is no postgres user to run PostgreSQL as (apt-get install postgresql creates it)";
  return undefined;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs one of PostgreSQL's programs, as the postgres user when root. */
function run(program: string, args: string[]): { status: number | null; output: string } {
  const bin = join(binDir()!, program);
  const result = ROOT ? spawnSync("runuser", ["-u", "postgres", "--", bin, ...args], { encoding: "utf8" }) : spawnSync(bin, args, { encoding: "utf8" });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

function runOrThrow(program: string, args: string[]): void {
  const result = run(program, args);
  if (result.status !== 0) throw new Error(`${program} ${args.join(" ")} failed (${result.status}):\n${result.output}`);
}

export interface PostgresServer {
  port: number;
  /** postgres://postgres:…@127.0.0.1:port/<database> */
  url(database?: string): string;
  /** Creates a database (an empty one for each test). */
  createDatabase(name: string): Promise<string>;
  /** Stops the server (fast shutdown: connections are cut). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface PostgresServerOptions {
  /**
   * fsync and synchronous commit on, as a production server runs (default false: a test cluster
   * that nothing outlives need not wait for the disk; the sandbox's correctness does not depend on it).
   */
  durable?: boolean;
}

export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const missing = postgresServerMissing();
  if (missing !== undefined) throw new Error(missing);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "mop-postgres-"));
  const data = join(dir, "data");
  const passwordFile = join(dir, "password");
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o600 });
  const owner = ROOT ? postgresUser() : undefined;
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(passwordFile, owner.uid, owner.gid);
  }
  runOrThrow("initdb", ["-D", data, "-U", "postgres", "--auth-local=trust", "--auth-host=scram-sha-256", `--pwfile=${passwordFile}`, "-E", "UTF8", "--no-instructions"]);
  const settings = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c max_connections=200",
    "-c shared_buffers=32MB",
    ...(options.durable ? [] : ["-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off"]),
  ].join(" ");
  const start = async () => {
    runOrThrow("pg_ctl", ["-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60", "-o", settings, "start"]);
  };
  const stop = async () => {
    const result = run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]);
    if (result.status !== 0 && !/is the server running|No such file/i.test(result.output)) throw new Error(`pg_ctl stop failed:\n${result.output}`);
  };
  await start();
  const url = (database = "postgres") => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  return {
    port,
    url,
    async createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a database name: ${name}`);
      runOrThrow("psql", ["-h", dir, "-p", String(port), "-U", "postgres", "-d", "postgres", "-q", "-c", `CREATE DATABASE ${name}`]);
      return url(name);
    },
    start,
    stop,
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
