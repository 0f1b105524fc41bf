// A real redis-server for tests and benchmarks, on a free loopback port, in its own temporary
// directory with an append-only file synced every second, as in production: a clean restart
// keeps the nonces, as a replay store must. `persistence: false` starts one that keeps nothing
// (a restart, or kill(), loses every key), to show what the nonce store does then; extra
// settings (e.g. maxmemory) go in `args`. Debian's redis-server; .ci/run installs it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Why no redis-server can be started here, or undefined when one can. */
export function redisServerMissing(): string | undefined {
  const probe = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  return probe.status === 0 ? undefined : "redis-server is not installed (apt-get install redis-server; .ci/run does it)";
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number, up: boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => (socket.destroy(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (open === up) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not ${up ? "start" : "stop"} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface RedisServer {
  url: string;
  port: number;
  /** Stops the server (it saves its append-only file first). */
  stop(): Promise<void>;
  /** Kills the server with SIGKILL: nothing is saved, as when a machine or container dies. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}

export interface RedisServerOptions {
  /** Keep an append-only file (default true); false: keep nothing across a restart. */
  persistence?: boolean;
  /** More redis-server arguments, e.g. ["--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru"]. */
  args?: string[];
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "mop-redis-"));
  const persistence = options.persistence === false ? ["--appendonly", "no"] : ["--appendonly", "yes", "--appendfsync", "everysec"];
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", ...persistence, "--protected-mode", "yes", ...(options.args ?? [])],
      { stdio: "ignore" },
    );
    await waitForPort(port, true);
  };
  const halt = async (signal: "SIGTERM" | "SIGKILL") => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGCONT");
    running.kill(signal);
    await exited;
    await waitForPort(port, false);
  };
  const stop = () => halt("SIGTERM");
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    start,
    stop,
    kill: () => halt("SIGKILL"),
    freeze: () => void child?.kill("SIGSTOP"),
    thaw: () => void child?.kill("SIGCONT"),
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
