// CI's soak (issue #38), in `npm test`: `npm run soak` with a random seed, printed first (replay a
// failure with `npm run soak -- --seed <seed> --replay <step>`), for SOAK_CI_MINUTES (default 2)
// against its own stack (own Postgres cluster and Redis on free ports, Anvil, 2 APIs, 2 workers,
// the SDK gateway), every invariant checked after every step; and the schedule's determinism:
// the same seed plans the same steps (same hashes), another seed other steps.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SoakSchedule } from '../../scripts/soak/soak-schedule.js';
import { RESPONSE_FIXTURES, STREAM_FIXTURES } from '../../scripts/soak/soak-stream-fixtures.js';
import { reassembleResponse } from '../../src/modules/streams/response-reassembler.js';
import { reassembleSse } from '../../src/modules/streams/sse-reassembler.js';
import type { SoakReport } from '../../scripts/soak/soak-report.js';

const REPO_ROOT = new URL('../../', import.meta.url).pathname;
const CI_MINUTES = Number(process.env.SOAK_CI_MINUTES ?? '2');
/**
 * A drain waits in the system's progress; with none at all it gives up after this long (the soak's
 * default is 600 s), once per drain: within the test's time, and far past a loaded machine's pauses.
 */
const DRAIN_STALL_MAX_S = process.env.SOAK_DRAIN_STALL_MAX_S ?? '300';
/**
 * Setup (own Postgres, Redis, Anvil, 2 APIs, 2 workers, SDK gateway, each start up to 3 min on a
 * loaded machine), a drain that meets a stuck stack (the ceiling, then a notice per later wait) and
 * the final drain.
 */
const SOAK_TIMEOUT_MS = (CI_MINUTES + 10) * 60_000 + (Number(DRAIN_STALL_MAX_S) + 5 * 90) * 1000;

function plan(seed: number, steps: number): string[] {
  const schedule = new SoakSchedule(seed);
  return Array.from({ length: steps }, () => schedule.next().hash);
}

/** seed, step and invariant of each failure, with the replay command. */
function failureText(seed: number, report: SoakReport | null): string {
  if (!report) return `seed=${seed}: no report`;
  const lines = report.failures.slice(0, 10).map((f) => `seed=${seed} step=${f.step} invariant=${f.invariant}: ${f.message}\n  replay: npm run soak -- --seed ${seed} --replay ${f.step}`);
  const aborted = report.op_errors.filter((e) => e.startsWith('soak aborted'));
  return [...lines, ...aborted.map((e) => `seed=${seed} step=${report.steps - 1}: ${e.slice(0, 2000)}`)].join('\n') || `seed=${seed}: report not ok`;
}

describe('the seeded soak', () => {
  let soak: ChildProcess | undefined;
  // A timed-out test leaves no soak behind: SIGTERM runs its cleanup (services, own Postgres and Redis).
  afterAll(() => {
    if (soak && soak.exitCode === null && soak.signalCode === null) soak.kill('SIGTERM');
  });

  it('plans the same steps for the same seed and other steps for another seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const first = plan(seed, 200);
        expect(plan(seed, 200)).toEqual(first);
        expect(plan(seed + 1, 200)[199]).not.toBe(first[199]);
      }),
      { numRuns: 20 },
    );
  });

  it("reads the usage the soak planned from each wire format's body (real recorded bodies, usage rewritten), with the format given or detected", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4000 }), fc.integer({ min: 1, max: 2000 }), fc.double({ min: 0, max: 0.5, noNaN: true }), (prompt, completion, share) => {
        const cached = Math.floor(prompt * share);
        for (const [format, fixture] of Object.entries(STREAM_FIXTURES)) {
          const usage = { prompt, completion, cached: fixture.cached ? cached : 0 };
          for (const given of [undefined, fixture.format]) {
            const stream = reassembleSse(fixture.body(usage, 'soak/alpha'), undefined, given as never);
            expect({ format: stream.format, error: stream.error, truncated: stream.truncated, service_tier: stream.service_tier }).toEqual({ format, error: null, truncated: false, service_tier: null });
            expect(stream.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, ...(usage.cached > 0 ? { cached_tokens: usage.cached } : {}) });
          }
        }
        for (const [format, fixture] of Object.entries(RESPONSE_FIXTURES)) {
          const answer = reassembleResponse(JSON.parse(fixture.body({ prompt, completion, cached }, 'soak/alpha')));
          expect(answer.ok && answer.stream.format).toBe(format);
          if (answer.ok) expect(answer.stream.usage).toMatchObject({ prompt_tokens: prompt, completion_tokens: completion, ...(cached > 0 ? { cached_tokens: cached } : {}) });
        }
      }),
      { numRuns: 30 },
    );
  });

  it(
    `runs ${CI_MINUTES} minute(s) with a random seed, every invariant holding after every step`,
    async () => {
      const seed = process.env.SOAK_CI_SEED ? Number(process.env.SOAK_CI_SEED) : randomInt(1, 2 ** 31);
      const dir = mkdtempSync(join(tmpdir(), 'soak-ci-'));
      const reportPath = join(dir, 'report.json');
      console.log(`soak seed ${seed}: replay with npm run soak -- --seed ${seed} --replay <step>`);
      const child = (soak = spawn(process.execPath, ['--import', 'tsx', 'scripts/soak.ts', '--seed', String(seed), '--minutes', String(CI_MINUTES), '--clean', '--report', reportPath], {
        cwd: REPO_ROOT,
        // The stack's readiness waits read info lines ("worker started"): jest's LOG_LEVEL=warn would hide them.
        env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'info', SOAK_DRAIN_STALL_MAX_S: DRAIN_STALL_MAX_S },
        stdio: ['ignore', 'pipe', 'pipe'],
      }));
      let output = '';
      child.stdout!.on('data', (c: Buffer) => (output = (output + c.toString('utf8')).slice(-20_000)));
      child.stderr!.on('data', (c: Buffer) => (output = (output + c.toString('utf8')).slice(-20_000)));
      const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
      let report: SoakReport | null = null;
      try {
        report = JSON.parse(readFileSync(reportPath, 'utf8')) as SoakReport;
      } catch {
        // no report: the output below says why
      }
      rmSync(dir, { recursive: true, force: true });
      if (code !== 0 || !report?.ok) {
        throw new Error(`soak seed ${seed} failed (exit ${code}):\n${failureText(seed, report)}\n--- output tail ---\n${output.slice(-6_000)}`);
      }
      expect(report.seed).toBe(seed);
      expect(report.steps).toBeGreaterThan(0);
      expect(report.step_hashes).toHaveLength(report.steps);
      // The run followed the schedule the seed plans.
      expect(report.schedule_hash).toBe(plan(seed, report.steps).at(-1));
      expect(report.failures).toEqual([]);
      expect(Object.values(report.invariants).every((i) => i.failures === 0)).toBe(true);
      expect(report.invariants.billed_exactly_once!.checks).toBeGreaterThan(0);
    },
    SOAK_TIMEOUT_MS,
  );
});
