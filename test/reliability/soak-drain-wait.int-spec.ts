// The soak's drain waits for LiteLLM spend rows in completed pull runs, not seconds (soak-drain.ts,
// soak-wait.ts; docs/reliability.md, the finding of seed 414123763): against a real database, runs
// completed by the service's own repository (LitellmRepository.sweepRunDone, as the pull's late
// sweep ends each run), the drain's real wait and the invariant's own bound:
// - a row that can never be billed fails after PULL_RUNS_BOUND completed runs, however fast they come;
// - a pull that pauses far past the drain's notice (a loaded machine) is waited for, and the row
//   billed after the pause passes;
// - a pull that completes no run at all fails only at the stall ceiling, and says so with the load.
import pg from 'pg';
import type { DatabaseService } from '../../src/database/database.service.js';
import { LitellmRepository } from '../../src/modules/litellm/litellm.repository.js';
import { waitForPullRows } from '../../scripts/soak/soak-drain.js';
import { PULL_RUNS_BOUND } from '../../scripts/soak/soak-litellm-pull.js';
import type { SoakContext } from '../../scripts/soak/soak-ops-context.js';
import { SoakRecord, type EventRecord } from '../../scripts/soak/soak-record.js';
import { createTestDatabase } from '../support/test-db.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the soak drain's wait for LiteLLM spend rows, in completed pull runs", () => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  let repository: LitellmRepository;

  beforeAll(async () => {
    database = await createTestDatabase('soak_drain_wait');
    pool = new pg.Pool({ connectionString: database.url, max: 4 });
    // The repository's run count uses the pool only.
    repository = new LitellmRepository({ pool } as unknown as DatabaseService);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  /** One completed pull run, as the service ends it: the count read at its start, moved at its end. */
  async function completeRun(): Promise<void> {
    const state = await repository.syncState('pull');
    await repository.sweepRunDone(state?.sweepRuns ?? 0);
  }

  async function runs(): Promise<number> {
    return (await repository.syncState('pull'))?.sweepRuns ?? 0;
  }

  function soakWith(eventId: string): { ctx: SoakContext; failures: Array<{ invariant: string; message: string }>; logs: string[]; row: EventRecord } {
    const record = new SoakRecord();
    const occurredMs = Date.now() - 60_000;
    const row: EventRecord = {
      event_id: eventId,
      user_id: 'u_soak1',
      contributor_id: 'c_soak1',
      model: 'soak/alpha',
      occurredAt: new Date(occurredMs).toISOString(),
      occurredMs,
      usage: { prompt: 10, completion: 5, cached: 0 },
      path: 'litellm_pull',
      state: 'accepted',
      acceptedStep: 3,
    } as EventRecord;
    record.events.set(eventId, row);
    const failures: Array<{ invariant: string; message: string }> = [];
    const logs: string[] = [];
    const ctx = {
      seed: 1,
      step: 39,
      stack: { db: pool },
      record,
      fail: (invariant: string, message: string) => failures.push({ invariant, message }),
      checked: () => undefined,
      log: (line: string) => logs.push(line),
    } as unknown as SoakContext;
    return { ctx, failures, logs, row };
  }

  it('fails a row that is never billed after the bound in completed runs, not after a time', async () => {
    const { ctx, failures, row } = soakWith('litellm:never-billed');
    let running = true;
    const pull = (async () => {
      while (running) {
        await completeRun();
        await sleep(30);
      }
    })();
    const startMs = Date.now();
    // A stall ceiling far away: only the runs can end this wait.
    const result = await waitForPullRows(ctx, { unit: 'pull run completed', stallNoticeMs: 60_000, stallMaxMs: 120_000, pollMs: 20 });
    running = false;
    await pull;
    expect(result.outcome).toBe('lost');
    expect(Date.now() - startMs).toBeLessThan(60_000);
    expect(row.sweepRunsWhenDue).toBeDefined();
    expect(failures).toHaveLength(1);
    expect(failures[0]!.invariant).toBe('accepted_events_stored');
    expect(failures[0]!.message).toMatch(new RegExp(`^litellm:never-billed \\(litellm_pull, written at step 3, .*\\) is not stored after (\\d+) completed pull runs since it was due \\(documented: within ${PULL_RUNS_BOUND - 1}\\)$`));
    const counted = Number(/after (\d+) completed/.exec(failures[0]!.message)![1]);
    expect(counted).toBeGreaterThanOrEqual(PULL_RUNS_BOUND);
    // Reported once: the invariant after the step does not report it again.
    expect(row.state).toBe('refused');
  });

  it('waits through a pull that pauses far longer than its notice, and passes once the row is billed', async () => {
    const { ctx, failures, logs } = soakWith('litellm:billed-late');
    const pull = (async () => {
      await sleep(3_000); // a loaded machine: no run for 3 s, the drain's notice is 1 s
      await completeRun();
      await sleep(200);
      // The run bills the row (the service's key row), and completes.
      await pool.query(`INSERT INTO usage_event_keys (event_id, request_hash, id, occurred_at) VALUES ($1, 'h', 1, now())`, ['litellm:billed-late']);
      await completeRun();
    })();
    const result = await waitForPullRows(ctx, { unit: 'pull run completed', stallNoticeMs: 1_000, stallMaxMs: 30_000, pollMs: 20 });
    await pull;
    expect(result.outcome).toBe('done');
    expect(result.longestStillMs).toBeGreaterThanOrEqual(2_500);
    expect(failures).toEqual([]);
    expect(logs.some((l) => /no pull run completed in \d+ s \(load [\d.]+\); waiting on/.test(l))).toBe(true);
  });

  it('fails a pull that completes no run at all only at the stall ceiling, saying so with the load', async () => {
    const { ctx, failures } = soakWith('litellm:no-run');
    const before = await runs();
    const result = await waitForPullRows(ctx, { unit: 'pull run completed', stallNoticeMs: 500, stallMaxMs: 2_000, pollMs: 20 });
    expect(result.outcome).toBe('stalled');
    expect(result.waitedMs).toBeGreaterThanOrEqual(2_000);
    expect(failures).toHaveLength(1);
    expect(failures[0]!.message).toMatch(new RegExp(`^1 due LiteLLM spend rows unbilled and no pull run completed in 2 s \\(load [\\d.]+; 0 before that, .*\\) \\(run count ${before}\\)$`));
  });
});
