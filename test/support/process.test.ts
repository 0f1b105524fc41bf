// The helper the quick-start and pack-and-install tests start programs with: it waits for the
// ready line, says what went wrong with the program's own output, and leaves nothing running.
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startProcess, startShellCommand, StartedProcesses } from "./process.js";

const node = (source: string) => [process.execPath, ["-e", source]] as const;
const cwd = process.cwd();
/** Running, not merely a zombie left for a parent that does not reap (PID 1 of a container). */
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
};

const processes = new StartedProcesses();
afterAll(() => processes.stopAll());

describe("startProcess", () => {
  it("resolves with the ready line's match once it is printed, on stdout or stderr", async () => {
    const [command, args] = node(`console.error("warming up"); setTimeout(() => console.log("listening on http://127.0.0.1:" + 4321), 50); setInterval(() => {}, 1000);`);
    const started = await processes.start(command, args, { cwd, ready: /listening on (http:\S+)/, timeoutMs: 10_000 });
    expect(started.match[1]).toBe("http://127.0.0.1:4321");
    expect(started.output()).toContain("warming up");
    await started.stop();
    expect(started.child.signalCode).toBe("SIGTERM");
  });

  it("passes the environment it is given", async () => {
    const [command, args] = node(`console.log("port=" + process.env.PORT); setInterval(() => {}, 1000);`);
    const started = await processes.start(command, args, { cwd, env: { ...process.env, PORT: "0" }, ready: /port=(\S+)/, timeoutMs: 10_000 });
    expect(started.match[1]).toBe("0");
  });

  it("rejects with the program's output when it exits before it is ready", async () => {
    const [command, args] = node(`console.error("cannot read fixtures.json"); process.exit(3);`);
    await expect(startProcess(command, args, { cwd, ready: /ready/, timeoutMs: 10_000 })).rejects.toThrow(/exited with 3:\ncannot read fixtures\.json/);
  });

  it("rejects when the program cannot start", async () => {
    await expect(startProcess("./no-such-program", [], { cwd, ready: /ready/, timeoutMs: 10_000 })).rejects.toThrow(/could not start \(spawn \.\/no-such-program ENOENT\)/);
  });

  it("rejects after the timeout with what it printed, and stops it", async () => {
    let pid = 0;
    const [command, args] = node(`console.log("pid " + process.pid); setInterval(() => {}, 1000);`);
    const failure = startProcess(command, args, { cwd, ready: /never printed/, timeoutMs: 300 });
    await expect(failure).rejects.toThrow(/did not print \/never printed\/ within 0\.3 s:\npid (\d+)/);
    pid = Number(/pid (\d+)/.exec(String(await failure.catch((error: Error) => error.message)))![1]);
    expect(alive(pid)).toBe(false);
  });

  it("stops everything the command started: its whole process group", async () => {
    // The shell starts a grandchild that would outlive a plain kill of the shell.
    const started = await startShellCommand(`${process.execPath} -e 'console.log("child " + process.pid); setInterval(() => {}, 1000)' & wait`, { cwd, ready: /child (\d+)/, timeoutMs: 10_000 });
    const grandchild = Number(started.match[1]);
    expect(alive(grandchild)).toBe(true);
    await started.stop();
    await expect.poll(() => alive(grandchild)).toBe(false);
  });
});

describe("StartedProcesses", () => {
  it("stops all it started at once, and may be used again", async () => {
    const group = new StartedProcesses();
    const [command, args] = node(`console.log("up"); setInterval(() => {}, 1000);`);
    const started = await Promise.all([group.start(command, args, { cwd, ready: /up/, timeoutMs: 10_000 }), group.startShell(`echo up; sleep 60`, { cwd, ready: /up/, timeoutMs: 10_000 })]);
    await group.stopAll();
    for (const { child } of started) expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
    await group.stopAll();
  });
});
