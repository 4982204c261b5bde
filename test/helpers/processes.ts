// The server and the admin CLI as real child processes, started as `npm start` and `npm run admin`
// start them, each in a process group of its own so a failed test can kill whatever it left behind.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Child {
  process: ChildProcess;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  /** The exit, or a rejection (after killing the group) when it takes longer than `timeoutMs`. */
  exited(timeoutMs: number): Promise<Run>;
}

const children = new Set<ChildProcess>();

export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // Already gone.
  }
}

/** For afterAll: kills every child still running. */
export function killAll(): void {
  for (const child of children) killGroup(child, 'SIGKILL');
}

/**
 * The command of an npm script (`node …` with this node, else a binary of node_modules), without npm
 * in between (nor its `pre` script: test/global-setup.ts builds dist/ once for the run).
 */
export function npmScript(name: 'start' | 'admin', extra: string[]): [string, string[]] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  const [command = '', ...args] = (pkg.scripts[name] ?? '').split(' ');
  return [
    command === 'node' ? process.execPath : path.join(ROOT, 'node_modules/.bin', command),
    [...args, ...extra],
  ];
}

/** The server as `npm start` runs it (without npm in between: a supervisor signals that process). */
export const startServer = (env: NodeJS.ProcessEnv): Child => run(...npmScript('start', []), env);

/** A node process running `script` (an ES module; tsx loads the TypeScript it imports). */
export const startScript = (script: string, env: NodeJS.ProcessEnv): Child =>
  run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], env);

/** `npm run admin -- …`. */
export const startAdmin = (args: string[], env: NodeJS.ProcessEnv): Child =>
  run(...npmScript('admin', args), env);

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: 'pipe' });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const closed = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      children.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
  return {
    process: child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          killGroup(child, 'SIGKILL');
          reject(new Error(`still running after ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
        }, timeoutMs);
      });
      return Promise.race([closed, late]).finally(() => clearTimeout(timer));
    },
  };
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/** Waits until GET /health answers 200; throws with the output when the server exits or takes too long. */
export async function waitUntilUp(child: Child, base: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && child.process.exitCode === null) {
    const up = await fetch(`${base}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  killGroup(child.process, 'SIGKILL');
  const run = await child.exited(10_000);
  throw new Error(`server did not come up (exit ${run.code})\n${run.stdout}\n${run.stderr}`);
}
