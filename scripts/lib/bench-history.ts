// npm run bench -- --history [--history-events N] [--history-steps K] [--duration S]
// Ingestion and the ledger check as history grows (docs/history.md): on an empty database, then
// after each of K seeding steps (N/K events each, spread over the 12 months before today, seeded
// server-side by scripts/lib/seed-events.ts), the same measurements: batch 1000 and single-event
// ingestion through the API, the ledger check from a fresh checkpoint and in full, earnings p50,
// bytes per event. Then archive throughput on the oldest month. Figures go to docs/history-bench.md.
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { BATCH_CONNECTIONS, median, runBatchLoad, runSingleLoad, SINGLE_CONNECTIONS, type LoadResult, type StackApi } from './bench-http.js';
import { measureEarningsQuery } from './earnings-bench.js';
import { SEED_CHUNK_EVENTS_DEFAULT, seedEvents } from './seed-events.js';
import { archiveUsage } from './usage-archive.js';
import { DAY_MS, nextUtcMidnight } from './utc-day.js';

const HISTORY_DAYS = 365;
const HISTORY_CONTRIBUTORS = 1000;
const HISTORY_USERS = 100;
const CHECK_RUNS = 3;

export interface HistoryStep {
  storedEvents: number;
  seedSeconds: number;
  batch1000EventsPerSecond: number;
  singleEventsPerSecond: number;
  singleP99Ms: number;
  checkpointWriteMs: number;
  checkFromCheckpointMs: number;
  /** The ledger section alone (the journal from the checkpoint), as the API timed it. */
  checkLedgerSectionMs: number;
  /** The rollup section (current and previous month's events), as the API timed it. */
  checkRollupsSectionMs: number;
  checkFullMs: number;
  earningsP50Ms: number;
  usageEventsBytes: number;
  keysBytes: number;
  bytesPerEvent: number;
}

export interface HistoryFigures {
  steps: HistoryStep[];
  archive: { month: string; rows: number; seconds: number; rowsPerSecond: number; fileBytes: number; reclaimedBytes: number } | null;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: Math.round((performance.now() - started) * 10) / 10 };
}

async function adminCall(stack: StackApi, method: 'GET' | 'POST', path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${stack.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${stack.adminKey}`, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  const runs: number[] = [];
  for (let i = 0; i < CHECK_RUNS; i += 1) runs.push((await timed(fn)).ms);
  return median(runs);
}

function assertOk(what: string, load: LoadResult): void {
  if (load.non2xx > 0 || load.errors > 0 || load.notPricedEvents > 0 || load.requests === 0) throw new Error(`${what}: ${load.non2xx} non-2xx, ${load.errors} errors, ${load.notPricedEvents} not priced`);
}

async function sizes(databaseUrl: string): Promise<{ events: number; usageEventsBytes: number; keysBytes: number }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const r = await client.query<{ events: string; parts: string; keys: string }>(
      `SELECT (SELECT count(*) FROM usage_event_keys) AS events,
              (SELECT coalesce(sum(pg_total_relation_size(inhrelid)), 0) FROM pg_inherits WHERE inhparent = 'usage_events'::regclass) AS parts,
              pg_total_relation_size('usage_event_keys') AS keys`,
    );
    return { events: Number(r.rows[0]!.events), usageEventsBytes: Number(r.rows[0]!.parts), keysBytes: Number(r.rows[0]!.keys) };
  } finally {
    await client.end();
  }
}

async function measureStep(stack: StackApi, key: string, durationS: number, step: number, seedSeconds: number, say: (line: string) => void): Promise<HistoryStep> {
  const batch = await runBatchLoad({ baseUrl: stack.baseUrl, key, size: 1000, connections: BATCH_CONNECTIONS, durationS, prefix: `hist${step}b` });
  assertOk('history batch 1000', batch);
  const single = await runSingleLoad({ baseUrl: stack.baseUrl, key, connections: SINGLE_CONNECTIONS, durationS, prefix: `hist${step}s` });
  assertOk('history single', single);
  const written = await timed(() => adminCall(stack, 'POST', '/v1/admin/ledger/checkpoints'));
  // A few entries after the checkpoint, as in production between two checkpoints.
  await runBatchLoad({ baseUrl: stack.baseUrl, key, size: 100, connections: 1, durationS: 1, prefix: `hist${step}after` });
  const sections: Array<Record<string, number>> = [];
  const fromCheckpoint = await medianMs(async () => {
    const body = await adminCall(stack, 'GET', '/v1/admin/ledger/check');
    if (body.ok !== true || body.mode !== 'checkpoint') throw new Error(`ledger check from checkpoint: ${JSON.stringify(body).slice(0, 500)}`);
    sections.push(body.timings_ms as Record<string, number>);
  });
  const full = await medianMs(async () => {
    const body = await adminCall(stack, 'GET', '/v1/admin/ledger/check?full=true');
    if (body.ok !== true) throw new Error(`full ledger check: ${JSON.stringify(body).slice(0, 500)}`);
  });
  const endDay = nextUtcMidnight();
  const earnings = await measureEarningsQuery({
    baseUrl: stack.baseUrl, apiKey: stack.adminKey, contributorId: 'seed-c000000', iterations: 50,
    from: new Date(endDay.getTime() - 30 * DAY_MS).toISOString().slice(0, 10), to: endDay.toISOString().slice(0, 10), groupBy: 'day',
  }).catch(() => ({ p50Ms: Number.NaN }));
  const size = await sizes(stack.databaseUrl);
  const figure: HistoryStep = {
    storedEvents: size.events,
    seedSeconds,
    batch1000EventsPerSecond: Math.round(batch.eventsPerSecond),
    singleEventsPerSecond: Math.round(single.eventsPerSecond),
    singleP99Ms: single.latencyP99Ms,
    checkpointWriteMs: written.ms,
    checkFromCheckpointMs: fromCheckpoint,
    checkLedgerSectionMs: median(sections.map((t) => t.ledger ?? Number.NaN)),
    checkRollupsSectionMs: median(sections.map((t) => t.rollups ?? Number.NaN)),
    checkFullMs: full,
    earningsP50Ms: earnings.p50Ms,
    usageEventsBytes: size.usageEventsBytes,
    keysBytes: size.keysBytes,
    bytesPerEvent: size.events === 0 ? 0 : Math.round((size.usageEventsBytes + size.keysBytes) / size.events),
  };
  say(`history @ ${figure.storedEvents.toLocaleString('en-US')} events: batch 1000 ${figure.batch1000EventsPerSecond}/s, single ${figure.singleEventsPerSecond}/s (p99 ${figure.singleP99Ms} ms), check from checkpoint ${figure.checkFromCheckpointMs} ms (ledger ${figure.checkLedgerSectionMs} ms, rollups ${figure.checkRollupsSectionMs} ms), full ${figure.checkFullMs} ms, checkpoint write ${figure.checkpointWriteMs} ms, earnings p50 ${figure.earningsP50Ms} ms, ${figure.bytesPerEvent} bytes/event`);
  return figure;
}

export async function measureHistory(stack: StackApi, key: string, options: { events: number; steps: number; durationS: number }, say: (line: string) => void): Promise<HistoryFigures> {
  // Warm-up (JIT, pools, prepared statements), as the main bench does before measuring.
  await runBatchLoad({ baseUrl: stack.baseUrl, key, size: 100, connections: BATCH_CONNECTIONS, durationS: Math.min(5, options.durationS), prefix: 'histwarm' });
  const steps: HistoryStep[] = [await measureStep(stack, key, options.durationS, 0, 0, say)];
  const endDay = nextUtcMidnight();
  for (let step = 1; step <= options.steps; step += 1) {
    const events = Math.round(options.events / options.steps);
    say(`history: seeding ${events.toLocaleString('en-US')} events over ${HISTORY_DAYS} days (step ${step} of ${options.steps})`);
    const seeded = await seedEvents({ databaseUrl: stack.databaseUrl, events, contributors: HISTORY_CONTRIBUTORS, users: HISTORY_USERS, models: 8, days: HISTORY_DAYS, endDay, chunkEvents: SEED_CHUNK_EVENTS_DEFAULT, log: (line) => say(`seed: ${line}`) });
    steps.push(await measureStep(stack, key, options.durationS, step, seeded.seconds, say));
  }
  // Archive throughput: the oldest month (a finished settlement is recorded so it counts as settled).
  const client = new pg.Client({ connectionString: stack.databaseUrl });
  await client.connect();
  await client.query(`INSERT INTO settlements (id, status, trigger, payout_count, total_micro_usdc, requires_approval, created_at, completed_at)
                      VALUES (gen_random_uuid(), 'confirmed', 'admin', 0, 0, false, now(), now())`);
  await client.end();
  const oldest = new Date(endDay.getTime() - HISTORY_DAYS * DAY_MS);
  const before = new Date(Date.UTC(oldest.getUTCFullYear(), oldest.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
  const out = await mkdtemp(join(tmpdir(), 'bench-archive-'));
  let archive: HistoryFigures['archive'] = null;
  try {
    const [month] = await archiveUsage({ databaseUrl: stack.databaseUrl, before, outDir: out, maturityDays: 0, log: () => undefined });
    if (month) {
      archive = { month: month.month, rows: Number(month.rows), seconds: month.seconds, rowsPerSecond: Math.round(Number(month.rows) / month.seconds), fileBytes: month.fileBytes, reclaimedBytes: Number(month.tableBytes) };
      say(`archive ${month.month}: ${archive.rows} rows in ${archive.seconds.toFixed(1)} s (${archive.rowsPerSecond} rows/s), file ${archive.fileBytes} bytes, ${archive.reclaimedBytes} bytes reclaimed`);
      const body = await adminCall(stack, 'GET', '/v1/admin/ledger/check?full=true');
      if (body.ok !== true) throw new Error(`ledger check after the archive: ${JSON.stringify(body).slice(0, 500)}`);
    }
  } finally {
    await rm(out, { recursive: true, force: true });
  }
  return { steps, archive };
}

export function renderHistoryMarkdown(figures: HistoryFigures, meta: { startedAt: Date; finishedAt: Date; durationS: number; machine: string }): string {
  const s0 = figures.steps[0]!;
  const last = figures.steps.at(-1)!;
  const ratio = (a: number, b: number) => (b === 0 ? 'n/a' : (a / b).toFixed(2));
  const rows = figures.steps.map((s) => `| ${s.storedEvents.toLocaleString('en-US')} | ${s.batch1000EventsPerSecond} | ${s.singleEventsPerSecond} | ${s.singleP99Ms} | ${s.checkFromCheckpointMs} (${s.checkLedgerSectionMs} / ${s.checkRollupsSectionMs}) | ${s.checkFullMs} | ${s.checkpointWriteMs} | ${s.earningsP50Ms} | ${s.bytesPerEvent} |`);
  return `# History bench (npm run bench -- --history)

Generated by \`scripts/lib/bench-history.ts\` on ${meta.startedAt.toISOString()} (run took ${Math.round((meta.finishedAt.getTime() - meta.startedAt.getTime()) / 1000)} s), ${meta.machine}; ${meta.durationS} s per load phase.
Events seeded over the 365 days before today (monthly partitions), then the same measurements after each step. Design: [history.md](history.md).

| stored events | batch 1000 events/s | single events/s | single p99 ms | check from checkpoint ms (ledger / rollups sections) | full check ms | checkpoint write ms | earnings p50 ms | bytes/event (table + indexes + key) |
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

- Ingestion with ${last.storedEvents.toLocaleString('en-US')} events stored vs empty: batch 1000 ${ratio(last.batch1000EventsPerSecond, s0.batch1000EventsPerSecond)}x, single ${ratio(last.singleEventsPerSecond, s0.singleEventsPerSecond)}x.
- Ledger check from a checkpoint: ${s0.checkFromCheckpointMs} ms empty, ${last.checkFromCheckpointMs} ms at ${last.storedEvents.toLocaleString('en-US')} events; its ledger section (the journal after the checkpoint) ${s0.checkLedgerSectionMs} -> ${last.checkLedgerSectionMs} ms; its rollup section sums the events of the current and previous month, so it follows recent volume (here 1/6 of the seeded history: ${s0.checkRollupsSectionMs} -> ${last.checkRollupsSectionMs} ms). The full scan grows with history (${s0.checkFullMs} -> ${last.checkFullMs} ms).
- Earnings p50 is n/a on the empty database (the seeded contributor does not exist yet).
${figures.archive ? `- Archive of ${figures.archive.month}: ${figures.archive.rows.toLocaleString('en-US')} rows in ${figures.archive.seconds.toFixed(1)} s (${figures.archive.rowsPerSecond.toLocaleString('en-US')} rows/s), ${figures.archive.fileBytes.toLocaleString('en-US')} bytes of ndjson.gz, ${figures.archive.reclaimedBytes.toLocaleString('en-US')} bytes reclaimed; the full ledger check passed afterwards.` : '- Archive: nothing to archive.'}
`;
}
