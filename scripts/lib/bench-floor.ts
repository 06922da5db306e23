// The floor phase (docs/operations.md "The bench's floor phase", issue 35): scripts/lib/floor-server.mjs
// started beside the API on the bench's database, loaded by the same single-event client with the
// same connections; its API and Postgres CPU per event are the denominators of the service's
// single-event figures.
import { join } from 'node:path';
import type { LoadResult, PhaseCpu } from './bench-http.js';
import { findFreePort, spawnService, waitForLog, type CleanupStack, type ManagedProcess } from './processes.js';

const FLOOR_SCRIPT = new URL('./floor-server.mjs', import.meta.url).pathname;
/** The service's single-event CPU per event may be at most this multiple of the floor's (issue 35). */
export const FLOOR_MULTIPLE_TARGET = 2;

export interface FloorServer {
  process: ManagedProcess;
  baseUrl: string;
}

/** The floor server on a free port, with plain `node` (no loader), logging into the run directory. */
export async function startFloorServer(o: { runDir: string; databaseUrl: string; cleanup: CleanupStack }): Promise<FloorServer> {
  const port = await findFreePort();
  const started = spawnService({
    name: 'floor',
    command: process.execPath,
    args: [FLOOR_SCRIPT],
    env: { PATH: process.env.PATH, DATABASE_URL: o.databaseUrl, PORT: String(port), NODE_ENV: 'production' },
    logPath: join(o.runDir, 'floor.log'),
  });
  o.cleanup.add('stop floor server', () => started.stop());
  await waitForLog(started, /floor ready on/);
  return { process: started, baseUrl: `http://127.0.0.1:${port}` };
}

interface PhaseFigure {
  load: LoadResult;
  cpu: PhaseCpu;
}

export const perEventUs = (cores: number, eventsPerSecond: number) => (eventsPerSecond > 0 ? (cores / eventsPerSecond) * 1e6 : Number.NaN);

/** API and Postgres CPU per event (us) of a phase, and the service's as multiples of the floor's. */
export function floorMultiples(service: PhaseFigure, floor: PhaseFigure) {
  const s = { api: perEventUs(service.cpu.apiCores, service.load.eventsPerSecond), postgres: perEventUs(service.cpu.postgresCores, service.load.eventsPerSecond) };
  const f = { api: perEventUs(floor.cpu.apiCores, floor.load.eventsPerSecond), postgres: perEventUs(floor.cpu.postgresCores, floor.load.eventsPerSecond) };
  return { service: s, floor: f, api: s.api / f.api, postgres: s.postgres / f.postgres };
}

/** The report's rows (docs/performance.md), in bench-report's row shape. */
export function floorRows(floor: (PhaseFigure & { runsEventsPerSecond: number[] }) | undefined, single: PhaseFigure, copyRowsPerSecond: number, fmt: { int: (n: number) => string; met: (ok: boolean) => string }) {
  if (!floor) return [];
  const m = floorMultiples(single, floor);
  const us = (n: number) => `${n.toFixed(0)} us`;
  const x = (n: number) => `${n.toFixed(2)}x`;
  return [
    {
      figure: `Floor: minimal Fastify 5 + pg server, same single events and clients, group commit (events/s; p50 / p99; median of ${floor.runsEventsPerSecond.length} runs: ${floor.runsEventsPerSecond.map(fmt.int).join(' / ')})`,
      value: `${fmt.int(floor.load.eventsPerSecond)}; ${floor.load.latencyP50Ms} ms / ${floor.load.latencyP99Ms} ms`,
      ratio: `${(floor.load.eventsPerSecond / copyRowsPerSecond).toFixed(3)}x of COPY`,
      target: 'reference',
      met: '',
    },
    { figure: 'Single-event API CPU per event: service / floor', value: `${us(m.service.api)} / ${us(m.floor.api)}`, ratio: x(m.api), target: `<= ${FLOOR_MULTIPLE_TARGET}x`, met: fmt.met(m.api <= FLOOR_MULTIPLE_TARGET) },
    { figure: 'Single-event Postgres CPU per event: service / floor', value: `${us(m.service.postgres)} / ${us(m.floor.postgres)}`, ratio: x(m.postgres), target: `<= ${FLOOR_MULTIPLE_TARGET}x`, met: fmt.met(m.postgres <= FLOOR_MULTIPLE_TARGET) },
  ];
}
