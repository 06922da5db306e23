// A throwaway Redis of our own on another port, so the outage scenario can freeze, crash and
// restart it without touching the machine's shared Redis (other runs' queues live there).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { findFreePort, signalGroup, sleep, spawnService, type ManagedProcess } from '../../../scripts/lib/processes.js';

const START_TIMEOUT_MS = 15_000;

export interface OwnRedis {
  port: number;
  url: string;
  isRunning(): boolean;
  start(): Promise<void>;
  /** kill -9: with append-only persistence (fsync always) nothing acknowledged is lost. */
  crash(): Promise<void>;
  /** SIGSTOP / SIGCONT: the server hangs instead of refusing (a partition, a stuck host). */
  freeze(): void;
  thaw(): void;
  destroy(): Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/**
 * persistence 'aof' is how a queue Redis should run (BullMQ jobs survive a restart); 'none' is
 * the development setting of this machine (`--save "" --appendonly no`), where a restart empties it.
 */
export async function startOwnRedis(input: { logDir: string; persistence: 'aof' | 'none' }): Promise<OwnRedis> {
  const port = await findFreePort();
  const dir = mkdtempSync(join(tmpdir(), 'rel-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  const persistence = input.persistence === 'aof' ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
  let incarnation = 0;
  let service: ManagedProcess | null = null;
  const isRunning = () => service?.isRunning() ?? false;

  const start = async () => {
    if (isRunning()) return;
    incarnation += 1;
    service = spawnService({
      name: 'own-redis',
      command: 'redis-server',
      args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir, '--daemonize', 'no', '--maxmemory-policy', 'noeviction'],
      env: { PATH: process.env.PATH },
      logPath: join(input.logDir, `redis.${incarnation}.log`),
    });
    const deadline = Date.now() + START_TIMEOUT_MS;
    while (!(await answers(url))) {
      if (!service.isRunning()) throw new Error(`own redis exited during start:\n${service.logTail()}`);
      if (Date.now() > deadline) throw new Error(`own redis not answering within ${START_TIMEOUT_MS} ms`);
      await sleep(100);
    }
  };

  const crash = async () => {
    if (service) {
      signalGroup(service.pid, 'SIGCONT');
      await service.kill9();
    }
  };

  await start();
  return {
    port,
    url,
    isRunning,
    start,
    crash,
    freeze: () => service && signalGroup(service.pid, 'SIGSTOP'),
    thaw: () => service && signalGroup(service.pid, 'SIGCONT'),
    destroy: async () => {
      await crash();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
