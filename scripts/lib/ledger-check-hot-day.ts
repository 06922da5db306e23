// One hot day (issue 35): N events today (COPY-speed seed), then GET /v1/admin/ledger/check
// (checkpointed) with nothing new and after 100 and 10,000 new events posted through the batch API
// (each with its journal entry and rollup, as ingestion writes them), and the checkpoint write
// (POST /v1/admin/ledger/checkpoints, what the worker's job runs) after 1,000 and 10,000 new
// journal entries: each should cost what is new, not the day's N events. A worker runs throughout,
// as in production: a check that read many entries after the checkpoint asks its ledger-checkpoint
// job to move it (the check no longer writes it itself).
import { loadavg } from 'node:os';
import { median, postEventBatches, timedGetJson, type StackApi } from './bench-http.js';
import { startWorker } from './bench-stack.js';
import { SEED_CHUNK_EVENTS_DEFAULT, seedEvents } from './seed-events.js';
import { nextUtcMidnight } from './utc-day.js';

/** The first check compares the seeded day with all its events once: minutes on a slow machine. */
const REQUEST_TIMEOUT_MS = 600_000;
const CHECKS_PER_STATE = 3;
export const HOT_DAY_EVENTS_DEFAULT = 2_000_000;
const HOT_DAY_CONTRIBUTORS = 100;
const HOT_DAY_MODELS = 8;
/** Issue 35's targets with the hot day in place. */
export const HOT_DAY_TARGETS_MS = { unchanged: 200, after100: 300, after10k: 500 } as const;
const CHECKPOINT_NEW_ENTRIES = [1_000, 10_000] as const;

type CheckBody = { ok: boolean; rollups?: { days_verified?: number; days_from_sums?: number }; timings_ms?: Record<string, number> };

export interface HotDayFigure {
  events: number;
  firstMs: number;
  /** Medians of CHECKS_PER_STATE checks, and every check's time. */
  unchangedMs: number;
  after100Ms: number;
  after10kMs: number;
  runsMs: { unchanged: number[]; after100: number[]; after10k: number[] };
  /** The sections' own times of the last check after 10,000 new events. */
  after10kSectionsMs: Record<string, number>;
  /** The checkpoint write after this many new journal entries: ms. */
  checkpoints: Array<{ entries: number; ms: number }>;
  fullMs: number;
  /** 1-minute load average when each state was measured (the machine may be shared). */
  load: { unchanged: number; after100: number; after10k: number; checkpoints: number };
}

export async function measureHotDay(o: StackApi & { key: string; events: number; log: (line: string) => void; runDir: string; apiEnv: Record<string, string> }): Promise<HotDayFigure> {
  o.log(`hot day: seeding ${o.events.toLocaleString('en-US')} events today`);
  await seedEvents({ databaseUrl: o.databaseUrl, events: o.events, contributors: HOT_DAY_CONTRIBUTORS, users: HOT_DAY_CONTRIBUTORS, models: HOT_DAY_MODELS, days: 1, endDay: nextUtcMidnight(), chunkEvents: SEED_CHUNK_EVENTS_DEFAULT, log: (line) => o.log(`seed: ${line}`) });
  // LOG_LEVEL info: its "worker started" line is what startWorker waits for.
  const worker = await startWorker({ name: 'hot-day-worker', runDir: o.runDir, env: { ...o.apiEnv, LOG_LEVEL: 'info' } });
  try {
    return await measureSeededHotDay(o);
  } finally {
    await worker.stop();
  }
}

async function measureSeededHotDay(o: StackApi & { key: string; events: number; log: (line: string) => void }): Promise<HotDayFigure> {
  const api = { baseUrl: o.baseUrl, key: o.key };
  const check = async (full = false) => {
    const r = await timedGetJson<CheckBody>(`${o.baseUrl}/v1/admin/ledger/check${full ? '?full=true' : ''}`, o.adminKey, REQUEST_TIMEOUT_MS, 'ledger check');
    if (!r.body.ok) throw new Error(`ledger check answered ok: false: ${JSON.stringify(r.body).slice(0, 500)}`);
    return r;
  };
  const load1 = () => loadavg()[0]!;
  const first = await check();
  let batch = 0;
  const timesAfter = async (newEvents: number) => {
    const times: number[] = [];
    let last = first;
    for (let i = 0; i < CHECKS_PER_STATE; i += 1) {
      await postEventBatches(api, `hot-${batch++}`, newEvents);
      last = await check();
      times.push(last.ms);
    }
    return { times, last };
  };
  const unchanged: number[] = [];
  for (let i = 0; i < CHECKS_PER_STATE; i += 1) unchanged.push((await check()).ms);
  const loadUnchanged = load1();
  const after100 = await timesAfter(100);
  const loadAfter100 = load1();
  const after10k = await timesAfter(10_000);
  const loadAfter10k = load1();
  const checkpoints: HotDayFigure['checkpoints'] = [];
  for (const entries of CHECKPOINT_NEW_ENTRIES) {
    await timedPost(o, '/v1/admin/ledger/checkpoints');
    await postEventBatches(api, `hot-cp-${entries}`, entries);
    checkpoints.push({ entries, ms: await timedPost(o, '/v1/admin/ledger/checkpoints') });
  }
  const loadCheckpoints = load1();
  const full = await check(true);
  const figure: HotDayFigure = {
    events: o.events,
    firstMs: first.ms,
    unchangedMs: median(unchanged),
    after100Ms: median(after100.times),
    after10kMs: median(after10k.times),
    runsMs: { unchanged, after100: after100.times, after10k: after10k.times },
    after10kSectionsMs: after10k.last.body.timings_ms ?? {},
    checkpoints,
    fullMs: full.ms,
    load: { unchanged: loadUnchanged, after100: loadAfter100, after10k: loadAfter10k, checkpoints: loadCheckpoints },
  };
  const runs = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
  o.log(
    `hot day of ${o.events.toLocaleString('en-US')} events: first ${first.ms.toFixed(0)} ms; nothing new ${runs(unchanged)} ms (load ${loadUnchanged.toFixed(2)}); ` +
      `after 100 new ${runs(after100.times)} ms (load ${loadAfter100.toFixed(2)}); after 10,000 new ${runs(after10k.times)} ms (load ${loadAfter10k.toFixed(2)}; sections ${JSON.stringify(figure.after10kSectionsMs)}); ` +
      `checkpoint write ${checkpoints.map((c) => `${c.entries} entries ${c.ms.toFixed(0)} ms`).join(', ')} (load ${loadCheckpoints.toFixed(2)}); ?full=true ${full.ms.toFixed(0)} ms`,
  );
  return figure;
}

async function timedPost(o: StackApi, path: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${o.baseUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${o.adminKey}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${path} -> ${response.status}: ${text.slice(0, 300)}`);
  return performance.now() - started;
}

/** The report's rows (docs/performance.md), in bench-report's row shape. */
export function hotDayRows(h: HotDayFigure | undefined, fmt: { int: (n: number) => string; ms: (n: number) => string; met: (ok: boolean) => string }) {
  if (!h) return [];
  const t = HOT_DAY_TARGETS_MS;
  const perEntry = h.checkpoints.map((c) => `${fmt.ms(c.ms)} for ${fmt.int(c.entries)}`).join(', ');
  return [
    {
      figure: `Ledger check (checkpointed), one hot day: ${fmt.int(h.events)} events today; nothing new / after 100 new / after 10,000 new (median of 3 each; batch API)`,
      value: `${fmt.ms(h.unchangedMs)} / ${fmt.ms(h.after100Ms)} / ${fmt.ms(h.after10kMs)}`,
      ratio: `load ${h.load.unchanged.toFixed(2)} / ${h.load.after100.toFixed(2)} / ${h.load.after10k.toFixed(2)}`,
      target: `< ${t.unchanged} / ${t.after100} / ${t.after10k} ms`,
      met: fmt.met(h.unchangedMs < t.unchanged && h.after100Ms < t.after100 && h.after10kMs < t.after10k),
    },
    { figure: 'Same day: first check after the seed (the day compared with all its events once) / ?full=true', value: `${fmt.ms(h.firstMs)} / ${fmt.ms(h.fullMs)}`, ratio: '', target: 'informational', met: '' },
    { figure: 'Same day: checkpoint write (POST /v1/admin/ledger/checkpoints, the worker job) after N new journal entries', value: perEntry, ratio: `load ${h.load.checkpoints.toFixed(2)}`, target: 'proportional to N', met: '' },
  ];
}
