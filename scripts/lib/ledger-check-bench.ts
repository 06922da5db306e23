// Latency of GET /v1/admin/ledger/check (checkpointed: without full) over a seeded database, as a
// client sees it, in the three states that matter: the first check after the seed (every day of
// the window is compared with its events once), a check with nothing new (only the per-day rollup
// digests are hashed), and a check after new events today (today's day is compared again, from its
// verified sums plus the events above its frontier); plus
// one ?full=true for reference (every day, every event).
import { median, timedGetJson, type StackApi } from './bench-http.js';
import { seedEvents } from './seed-events.js';
import { nextUtcMidnight } from './utc-day.js';

// The first check after the seed writes the ledger checkpoint (reads the whole journal) and ?full=true
// reads every event: minutes on a slow machine.
const REQUEST_TIMEOUT_MS = 600_000;
/** Checks timed per state; the median is reported. */
const CHECKS_PER_STATE = 3;

export interface LedgerCheckFigure {
  /** Priced events the checkpointed check's window (current and previous UTC month) holds. */
  eventsInWindow: number;
  newEvents: number;
  firstMs: number;
  unchangedMs: number;
  afterNewEventsMs: number;
  fullMs: number;
  /** The rollups section's own answer after the new events (days compared again / skipped). */
  daysVerified: number;
  daysUnchanged: number;
  /** Of the days compared again, those compared as verified sums plus their new events only. */
  daysFromSums: number;
  /** The sections' own times (timings_ms) of the last check after new events. */
  afterNewEventsSectionsMs: Record<string, number>;
}

type CheckBody = { ok: boolean; rollups?: { days_verified?: number; days_unchanged?: number; days_from_sums?: number }; timings_ms?: Record<string, number> };

async function timedCheck(baseUrl: string, adminKey: string, full: boolean): Promise<{ ms: number; body: CheckBody }> {
  const check = await timedGetJson<CheckBody>(`${baseUrl}/v1/admin/ledger/check${full ? '?full=true' : ''}`, adminKey, REQUEST_TIMEOUT_MS, 'ledger check');
  if (!check.body.ok) throw new Error(`ledger check answered ok: false: ${JSON.stringify(check.body).slice(0, 500)}`);
  return check;
}

export async function measureLedgerCheck(o: StackApi & { eventsInWindow: number; newEvents: number; log: (line: string) => void }): Promise<LedgerCheckFigure> {
  const first = await timedCheck(o.baseUrl, o.adminKey, false);
  const unchanged: number[] = [];
  for (let i = 0; i < CHECKS_PER_STATE; i += 1) unchanged.push((await timedCheck(o.baseUrl, o.adminKey, false)).ms);
  const afterNew: number[] = [];
  let last = first;
  for (let i = 0; i < CHECKS_PER_STATE; i += 1) {
    // New priced events today (with their rollups and journal): today's digest changes every time.
    await seedEvents({ databaseUrl: o.databaseUrl, events: o.newEvents, contributors: 1, users: 1, models: 1, days: 1, endDay: nextUtcMidnight(), chunkEvents: o.newEvents });
    last = await timedCheck(o.baseUrl, o.adminKey, false);
    afterNew.push(last.ms);
  }
  const full = await timedCheck(o.baseUrl, o.adminKey, true);
  const figure: LedgerCheckFigure = {
    eventsInWindow: o.eventsInWindow,
    newEvents: o.newEvents,
    firstMs: first.ms,
    unchangedMs: median(unchanged),
    afterNewEventsMs: median(afterNew),
    fullMs: full.ms,
    daysVerified: last.body.rollups?.days_verified ?? -1,
    daysUnchanged: last.body.rollups?.days_unchanged ?? -1,
    daysFromSums: last.body.rollups?.days_from_sums ?? -1,
    afterNewEventsSectionsMs: last.body.timings_ms ?? {},
  };
  o.log(
    `ledger check over ${o.eventsInWindow.toLocaleString('en-US')} events in its window: first ${figure.firstMs.toFixed(0)} ms, nothing new ${figure.unchangedMs.toFixed(0)} ms, ` +
      `after ${o.newEvents} new events today ${figure.afterNewEventsMs.toFixed(0)} ms (${figure.daysVerified} day(s) compared again, ${figure.daysFromSums} of them from their verified sums, ${figure.daysUnchanged} skipped; sections ${JSON.stringify(figure.afterNewEventsSectionsMs)}), ?full=true ${figure.fullMs.toFixed(0)} ms`,
  );
  return figure;
}
