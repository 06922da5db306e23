// The real entry point (src/main.ts) as a child process, with its stdout and stderr captured: the
// only faithful way to read what the service logs (pino writes to file descriptor 1 directly).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const READY_TIMEOUT_MS = 30_000;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface AppProcess {
  baseUrl: string;
  /** Everything the process wrote so far, stdout and stderr. */
  output: () => string;
  /** Whether the process is still running. */
  alive: () => boolean;
  stop: () => Promise<void>;
}

/** `nodeFlags`: flags before the entry, e.g. production's heap cap (productionNodeFlags('api', ...)). */
export async function startAppProcess(env: Record<string, string>, nodeFlags: string[] = [], readyTimeoutMs = READY_TIMEOUT_MS): Promise<AppProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [...nodeFlags, '--import', './test/support/ts-node/swc-register.mjs', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app process exited (${child.exitCode}): ${output.slice(-2000)}`);
    const ok = await fetch(`${baseUrl}/health`).then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`app process not ready within ${readyTimeoutMs} ms: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    baseUrl,
    output: () => output,
    alive: () => child.exitCode === null && child.signalCode === null,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
