// Starts and restarts the SDK gateway child (soak-sdk-gateway.ts) on a fixed port with a fixed
// outbox directory, so a kill -9 and restart continues from what the outbox holds on disk.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../lib/bench-stack.js';
import { findFreePort, spawnService, waitForLog, type ManagedProcess } from '../lib/processes.js';

const GATEWAY_SCRIPT = join(REPO_ROOT, 'scripts/soak/soak-sdk-gateway.ts');
const REQUEST_TIMEOUT_MS = 20_000;
const START_ATTEMPTS_MAX = 3;

export interface SdkGateway {
  baseUrl: string;
  outboxDir: string;
  process: ManagedProcess;
  /** Hands one usage event to the gateway; true once it is in the outbox. */
  report(body: Record<string, unknown>): Promise<boolean>;
  flush(): Promise<{ delivered: number; pending: number; dead: number } | null>;
  /** Event ids the ledger refused for good (the SDK's onReportError), with the error. */
  refused(): Array<{ event_id: string; error: string }>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startSdkGateway(o: { runDir: string; apiBaseUrl: string; adminKey: string }): Promise<SdkGateway> {
  const port = await findFreePort();
  const dir = join(o.runDir, 'sdk-gateway');
  const outboxDir = join(dir, 'outbox');
  mkdirSync(outboxDir, { recursive: true });
  const spec = {
    name: 'sdk-gateway',
    command: process.execPath,
    args: ['--import', 'tsx', GATEWAY_SCRIPT],
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH, SOAK_OUTBOX_DIR: outboxDir, SOAK_LEDGER_URL: o.apiBaseUrl, SOAK_LEDGER_KEY: o.adminKey, SOAK_GATEWAY_PORT: String(port) },
    logPath: join(o.runDir, 'sdk-gateway.log'),
  };
  const launch = async () => {
    // tsx compiles the gateway at start: on a loaded machine that can pass the wait, so try again.
    for (let attempt = 1; ; attempt++) {
      const service = spawnService(spec);
      try {
        // The log is appended across restarts: wait for this incarnation's line.
        await waitForLog(service, new RegExp(`sdk gateway ready \\(pid ${service.pid}\\)`));
        return service;
      } catch (error) {
        await service.kill9();
        if (attempt >= START_ATTEMPTS_MAX) throw error;
      }
    }
  };
  const baseUrl = `http://127.0.0.1:${port}`;
  const gateway: SdkGateway = {
    baseUrl,
    outboxDir,
    process: await launch(),
    report: async (body) => {
      try {
        const response = await fetch(`${baseUrl}/report`, { method: 'POST', body: JSON.stringify(body), signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        return response.status === 200;
      } catch {
        return false;
      }
    },
    flush: async () => {
      try {
        const response = await fetch(`${baseUrl}/flush`, { method: 'POST', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 3) });
        return response.status === 200 ? ((await response.json()) as { delivered: number; pending: number; dead: number }) : null;
      } catch {
        return null;
      }
    },
    refused: () => {
      try {
        return readFileSync(join(dir, 'refused.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event_id: string; error: string });
      } catch {
        return [];
      }
    },
    restart: async () => {
      await gateway.process.kill9();
      gateway.process = await launch();
    },
    stop: async () => {
      await gateway.process.stop();
    },
  };
  return gateway;
}
