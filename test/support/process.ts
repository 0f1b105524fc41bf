// Programs started as a user starts them (a script, or a command line from a guide), waited for
// until they print that they are ready, and stopped with everything they started. Each runs in
// its own process group, so stopping `sh -c "npx mop sandbox"` also stops npx and the sandbox.
import { execFile, spawn, type ChildProcess } from "node:child_process";

export interface StartedProcess {
  readonly child: ChildProcess;
  /** The match of `ready` in its output. */
  readonly match: RegExpMatchArray;
  /** Everything it printed so far, stdout and stderr as they came. */
  output(): string;
  /** Stops its process group (SIGTERM, then SIGKILL after a grace period); resolves once it exited. */
  stop(): Promise<void>;
}

export interface StartOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** What it prints once it is ready; the first match is kept. */
  ready: RegExp;
  /** How long it may take to print `ready`. */
  timeoutMs: number;
}

const GRACE_MS = 5_000;

/**
 * Starts `command` with `args` in a new process group. Resolves once its output matches
 * `ready`; rejects with everything it printed when it exits, cannot start or times out first
 * (and then stops it, so nothing is left running).
 */
export function startProcess(command: string, args: readonly string[], options: StartOptions): Promise<StartedProcess> {
  const label = [command, ...args].join(" ");
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let text = "";
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    signalGroup(child.pid, "SIGTERM");
    let timer: NodeJS.Timeout | undefined;
    const killed = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        signalGroup(child.pid!, "SIGKILL");
        resolve();
      }, GRACE_MS);
    });
    await Promise.race([exited, killed]);
    clearTimeout(timer);
    await exited;
  };
  const ready = options.ready;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().finally(() => reject(new Error(`${label} ${why}:\n${text}`)));
    };
    const timer = setTimeout(() => fail(`did not print ${ready} within ${options.timeoutMs / 1000} s`), options.timeoutMs);
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (settled) return;
      const match = text.match(ready);
      if (!match) return;
      settled = true;
      clearTimeout(timer);
      resolve({ child, match, output: () => text, stop });
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("error", (error) => fail(`could not start (${error.message})`));
    child.on("exit", (code, signal) => fail(`exited with ${code ?? signal}`));
  });
}

/** Starts a command line as a guide shows it, through `sh -c`. */
export function startShellCommand(line: string, options: StartOptions): Promise<StartedProcess> {
  return startProcess("sh", ["-c", line], options);
}

/** The processes a test file started, to stop all at once (in afterAll, or between steps). */
export class StartedProcesses {
  private readonly running = new Set<StartedProcess>();

  async start(command: string, args: readonly string[], options: StartOptions): Promise<StartedProcess> {
    return this.track(await startProcess(command, args, options));
  }

  async startShell(line: string, options: StartOptions): Promise<StartedProcess> {
    return this.track(await startShellCommand(line, options));
  }

  async stopAll(): Promise<void> {
    const stopping = [...this.running].map((started) => started.stop());
    this.running.clear();
    await Promise.all(stopping);
  }

  private track(started: StartedProcess): StartedProcess {
    this.running.add(started);
    return started;
  }
}

/** What a script run to its end printed, and its exit code (1 when it was killed or timed out). */
export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one of the package's TypeScript scripts through tsx, as `npm run <script>` does after its build step. */
export function runTsxScript(script: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ScriptRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", script, ...args], { cwd: options.cwd, env: options.env ?? process.env, timeout: options.timeoutMs }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
