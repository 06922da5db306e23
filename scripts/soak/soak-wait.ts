// How a drain waits: in units of the system's own progress, not in seconds. A wait observes what it
// waits for (done?), a progress mark that moves whenever the system did a unit of its work (a
// completed pull run, a job finished, a settlement's state changed) and, where the service bounds
// the delay in such units, whether that bound is passed (a loss). So a loaded machine, whose units
// come slowly, is waited for; a system that works and still does not deliver fails at once.
// Wall-clock time ends a wait only when nothing moved at all for `stallMaxMs` (the last resort),
// and the wait says so with the load average, so "slow" is never read as "lost".
import { loadavg } from 'node:os';
import { sleep } from '../lib/processes.js';

export interface Observation {
  done: boolean;
  /** Moves whenever the system made a unit of progress (compared by value). */
  progress: string | number;
  /** Set when the service's own bound, counted in its units, is passed: a real loss. */
  lost?: string | null;
}

export interface ProgressWaitOptions {
  /** What a unit of progress is, for the messages ("pull run completed"). */
  unit: string;
  /** No progress for this long: logged with the load, and the wait goes on. */
  stallNoticeMs: number;
  /** No progress for this long: the wait ends (last resort). */
  stallMaxMs: number;
  pollMs?: number;
}

/** waitedMs: the whole wait; moves: progress marks seen; longestStillMs: the longest spell without one. */
export type WaitResult = { waitedMs: number; moves: number; longestStillMs: number } & (
  | { outcome: 'done' }
  | { outcome: 'lost'; message: string }
  | { outcome: 'stalled'; message: string; stillMs: number; load: string }
);

const POLL_MS = 500;

/** The 1-minute load average, for the messages. */
export function loadText(): string {
  return loadavg()[0]!.toFixed(1);
}

/**
 * Observes until done, lost, or no progress for `stallMaxMs`. An observation that throws
 * (Postgres or Redis coming back) counts as no progress and is asked again.
 */
export async function waitForProgress(what: string, observe: () => Promise<Observation>, options: ProgressWaitOptions, log: (line: string) => void): Promise<WaitResult> {
  const startMs = Date.now();
  let lastMark: string | number | undefined;
  let lastMoveMs = startMs;
  let moves = 0;
  let noticed = false;
  let lastError = '';
  let longestStillMs = 0;
  const figures = () => ({ waitedMs: Date.now() - startMs, moves, longestStillMs: Math.max(longestStillMs, Date.now() - lastMoveMs) });
  for (;;) {
    try {
      const seen = await observe();
      if (lastMark !== undefined && seen.progress !== lastMark) {
        moves += 1;
        longestStillMs = Math.max(longestStillMs, Date.now() - lastMoveMs);
        lastMoveMs = Date.now();
        noticed = false;
      }
      lastMark = seen.progress;
      if (seen.done) return { outcome: 'done', ...figures() };
      if (seen.lost) return { outcome: 'lost', message: seen.lost, ...figures() };
    } catch (error) {
      lastError = (error as Error).message?.split('\n')[0] ?? String(error);
    }
    const stillMs = Date.now() - lastMoveMs;
    if (stillMs >= options.stallMaxMs) {
      const load = loadText();
      const message = `no ${options.unit} in ${Math.round(stillMs / 1000)} s (load ${load}; ${moves} before that, in ${Math.round((Date.now() - startMs) / 1000)} s of waiting${lastError ? `; last error ${lastError}` : ''})`;
      log(`${what}: ${message}`);
      return { outcome: 'stalled', message, stillMs, load, ...figures() };
    }
    if (!noticed && stillMs >= options.stallNoticeMs) {
      noticed = true;
      log(`${what}: no ${options.unit} in ${Math.round(stillMs / 1000)} s (load ${loadText()}); waiting on, up to ${Math.round(options.stallMaxMs / 1000)} s without one`);
    }
    await sleep(options.pollMs ?? POLL_MS);
  }
}
