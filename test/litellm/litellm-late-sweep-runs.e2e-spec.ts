// The late sweep finds a late row within twelve runs however the runs fall in time (docs/
// integrations.md). The slice a run swept used to follow the clock (floor(now / interval) mod 12),
// so runs that came twice in one interval, late, or skipped under load swept one slice again and
// left others out: here thirteen runs at one instant never found a row two hours late. The slice
// now follows the count of completed sweeps. Real Postgres (the ledger's and LiteLLM's), the worker.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { LitellmBackfillService } from '../../src/modules/litellm/litellm-backfill.service.js';
import { LATE_SWEEP_SLICES } from '../../src/modules/litellm/litellm-late-sweep.js';
import { expectLedgerClean } from '../support/billing-fixtures.js';
import { DEPLOYMENT_MAPPED } from '../support/litellm-payloads.js';
import { adminQuery, databaseUrl, dropDatabase } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startTestWorker } from '../support/test-worker.js';

const SPEND_LOGS_SQL = readFileSync(new URL('../fixtures/litellm/spend_logs.sql', import.meta.url), 'utf8');
const MINUTE_MS = 60_000;
const naive = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');

function spendRow(id: string, atMs: number) {
  return {
    request_id: id, call_type: 'acompletion', api_key: 'hash-of-key-1', spend: 0.000225, total_tokens: 30, prompt_tokens: 10, completion_tokens: 20,
    startTime: naive(atMs), endTime: naive(atMs), model: 'gpt-4o', model_id: DEPLOYMENT_MAPPED, model_group: 'gpt-4o', custom_llm_provider: 'openai', user: 'u_42', team_id: '',
    metadata: JSON.stringify({ usage_object: { completion_tokens: 20, prompt_tokens: 10, total_tokens: 30 }, model_map_information: { model_map_key: 'gpt-4o', model_map_value: null }, status: 'success' }),
    cache_hit: 'False', status: 'success',
  };
}

describe('LiteLLM pull: the late sweep covers its window within twelve runs', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  let litellmDb: pg.Client;
  const litellmDbName = `lt_litellm_sweep_${randomBytes(4).toString('hex')}`;
  // An hour between scheduled runs: the test makes the runs itself.
  const env = { LITELLM_DATABASE_URL: databaseUrl(litellmDbName), LITELLM_BACKFILL_SECONDS: '3600', LITELLM_BACKFILL_OVERLAP_SECONDS: '600' };
  const insertRow = async (row: Record<string, unknown>) => {
    const columns = Object.keys(row);
    await litellmDb.query(`INSERT INTO "LiteLLM_SpendLogs" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`, Object.values(row));
  };

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE "${litellmDbName}"`);
    litellmDb = new pg.Client({ connectionString: databaseUrl(litellmDbName) });
    await litellmDb.connect();
    await litellmDb.query(SPEND_LOGS_SQL);
    t = await startTestApp('litellm_sweep_runs', env);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'gpt-4o', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.put('/v1/admin/contributors/c_std')).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
    await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: '100', reference: 'seed-u42' }).expect(201);
    await t.admin(t.http.put(`/v1/admin/integrations/litellm/deployments/${DEPLOYMENT_MAPPED}`)).send({ contributor_id: 'c_std' }).expect(201);
    worker = await startTestWorker(t.databaseUrl, env);
  });
  afterAll(async () => {
    await worker?.close();
    await t?.close();
    await litellmDb?.end();
    await dropDatabase(litellmDbName);
  });

  it('finds a row written two hours late within twelve runs that all ran at one instant', async () => {
    const backfill = worker!.worker.get(LitellmBackfillService);
    const now = new Date();
    // A current row moves the checkpoint to the present.
    await insertRow(spendRow('sweep-now', now.getTime() - MINUTE_MS));
    await backfill.run(now);
    // Two hours late: behind the checkpoint's overlap, only the sweep can find it; its minute is
    // in a slice the clock-derived number of `now` does not name.
    const clockSlice = Math.floor(now.getTime() / 3600_000) % LATE_SWEEP_SLICES;
    let lateMs = now.getTime() - 2 * 3600_000;
    while (Math.floor(lateMs / MINUTE_MS) % LATE_SWEEP_SLICES === clockSlice) lateMs -= MINUTE_MS;
    await insertRow(spendRow('sweep-2h-late', lateMs));
    const billed = async () => (await t.admin(t.http.get('/v1/usage-events/litellm:sweep-2h-late'))).status === 200;
    let runs = 0;
    while (runs < LATE_SWEEP_SLICES && !(await billed())) {
      await backfill.run(now);
      runs += 1;
    }
    expect({ billed: await billed(), runs }).toEqual({ billed: true, runs: expect.any(Number) });
    expect(runs).toBeLessThanOrEqual(LATE_SWEEP_SLICES);
    await expectLedgerClean(t);
  });
});
