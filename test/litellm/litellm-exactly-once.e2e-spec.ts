// Property (issue 34): whatever the order in which LiteLLM's pushes (retried, dropped, or arriving
// after a cache hit or a failure with the same id), its spend-log rows and the worker's pull runs
// reach the ledger, every call whose success reached it by either path is billed exactly once and
// nothing else is billed. Real Postgres (the ledger's, and a scratch LiteLLM database built from
// LiteLLM's schema.prisma), Redis, the HTTP app and the worker's backfill service.
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { LitellmBackfillService } from '../../src/modules/litellm/litellm-backfill.service.js';
import { expectLedgerClean } from '../support/billing-fixtures.js';
import { DEPLOYMENT_MAPPED, litellmPayload } from '../support/litellm-payloads.js';
import { adminQuery, databaseUrl, dropDatabase } from '../support/test-db.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startTestWorker, type TestWorker } from '../support/test-worker.js';

const SPEND_LOGS_SQL = readFileSync(new URL('../fixtures/litellm/spend_logs.sql', import.meta.url), 'utf8');

interface Call {
  /** Success pushes that reach the ledger (0: LiteLLM dropped every batch of it). */
  pushes: number;
  inSpendLog: boolean;
  cacheHitFirst: boolean;
  failureFirst: boolean;
}
type Action = { kind: 'push'; call: number; payload: 'success' | 'cache_hit' | 'failure' } | { kind: 'row'; call: number } | { kind: 'pull' };

const callArbitrary = fc.record({ pushes: fc.integer({ min: 0, max: 2 }), inSpendLog: fc.boolean(), cacheHitFirst: fc.boolean(), failureFirst: fc.boolean() });
/** The calls, and an interleaving of what reaches the ledger (per call: its skipped twins first, as they happen). */
const scenario = fc.array(callArbitrary, { minLength: 1, maxLength: 5 }).chain((calls) => {
  const perCall = calls.map((c, call) => {
    const actions: Action[] = [];
    if (c.cacheHitFirst) actions.push({ kind: 'push', call, payload: 'cache_hit' });
    if (c.failureFirst) actions.push({ kind: 'push', call, payload: 'failure' });
    for (let i = 0; i < c.pushes; i += 1) actions.push({ kind: 'push', call, payload: 'success' });
    if (c.inSpendLog) actions.push({ kind: 'row', call });
    return actions;
  });
  const all = [...perCall.flat(), ...Array.from({ length: 3 }, (): Action => ({ kind: 'pull' }))];
  return fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }).map((order) => ({ calls, order }));
});

describe('LiteLLM push and pull bill each call exactly once (property)', () => {
  let t: TestApp;
  let worker: TestWorker;
  let litellmDb: pg.Client;
  let ledger: pg.Client;
  const litellmDbName = `lt_litellm_once_${randomBytes(4).toString('hex')}`;
  const litellmUrl = databaseUrl(litellmDbName);

  beforeAll(async () => {
    await adminQuery(`CREATE DATABASE "${litellmDbName}"`);
    litellmDb = new pg.Client({ connectionString: litellmUrl });
    await litellmDb.connect();
    await litellmDb.query(SPEND_LOGS_SQL);
    // The scheduled run is rare: the property drives the pull itself, at the points it chose.
    const env = { LITELLM_DATABASE_URL: litellmUrl, LITELLM_BACKFILL_SECONDS: '86400', LITELLM_BACKFILL_FROM: new Date(Date.now() - 3600_000).toISOString() };
    t = await startTestApp('litellm_once', env);
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'gpt-4o', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.put('/v1/admin/contributors/c_std')).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
    await t.admin(t.http.put(`/v1/admin/integrations/litellm/deployments/${DEPLOYMENT_MAPPED}`)).send({ contributor_id: 'c_std' }).expect(201);
    worker = await startTestWorker(t.databaseUrl, env);
    ledger = new pg.Client({ connectionString: t.databaseUrl });
    await ledger.connect();
  });
  afterAll(async () => {
    await ledger?.end();
    await worker?.close();
    await t?.close();
    await litellmDb?.end();
    await dropDatabase(litellmDbName);
  });

  it('for random interleavings of pushes, retries, cache hits, failures, spend rows and pull runs', async () => {
    const backfill = worker.worker.get(LitellmBackfillService);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ calls, order }) => {
        run += 1;
        const id = (call: number) => `once-${run}-${call}`;
        const endTime = new Date(Date.now() - 60_000).toISOString().replace('T', ' ').replace('Z', '');
        for (const action of order) {
          if (action.kind === 'pull') {
            await backfill.run();
          } else if (action.kind === 'row') {
            await litellmDb.query(
              `INSERT INTO "LiteLLM_SpendLogs" (request_id, call_type, api_key, spend, total_tokens, prompt_tokens, completion_tokens, "startTime", "endTime", model, model_id, "user", metadata, cache_hit, status)
               VALUES ($1, 'acompletion', 'hash-of-key-1', 0.000225, 30, 10, 20, $2, $2, 'gpt-4o', $3, 'u_42', $4, 'False', 'success')`,
              [id(action.call), endTime, DEPLOYMENT_MAPPED, JSON.stringify({ usage_object: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 }, model_map_information: { model_map_key: 'gpt-4o' } })],
            );
          } else {
            const overrides = action.payload === 'cache_hit' ? { cache_hit: true } : action.payload === 'failure' ? { status: 'failure' } : {};
            const res = await t.admin(t.http.post('/v1/integrations/litellm')).set('Content-Type', 'application/json').send(JSON.stringify([{ ...litellmPayload(id(action.call), { endTime, ...overrides }), messages: [] }]));
            expect(res.status).toBe(200);
          }
        }
        await backfill.run();
        const billed = await ledger.query<{ event_id: string; events: number; postings: number }>(
          `SELECT e.event_id, count(*)::int AS events, (SELECT count(*)::int FROM journal_entries j WHERE j.ref = e.event_id) AS postings
           FROM usage_events e WHERE e.event_id LIKE $1 GROUP BY e.event_id ORDER BY e.event_id`,
          [`litellm:once-${run}-%`],
        );
        const expected = calls
          .map((c, call) => ({ c, call }))
          .filter(({ c }) => c.pushes > 0 || c.inSpendLog)
          .map(({ call }) => ({ event_id: `litellm:${id(call)}`, events: 1, postings: 1 }))
          .sort((a, b) => a.event_id.localeCompare(b.event_id));
        expect(billed.rows).toEqual(expected);
      }),
      { numRuns: 12 },
    );
    await expectLedgerClean(t);
  });
});
