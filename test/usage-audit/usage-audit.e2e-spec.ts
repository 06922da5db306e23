// The usage audit end to end (api.md "Contributor trust", issue 27 item 3): a simulated population
// of honest contributors (provider-like noise) and two inflating completion tokens by 15% and 20%,
// all through POST /v1/usage-events/stream; the real worker counts the streams' tokens; the audit
// flags exactly the inflators, announces them, holds them for review, and a review clears or
// suspends. A property: no audit step ever changes what anyone is charged or paid.
import fc from 'fast-check';
import { choiceChunk, sseBody } from '../../src/modules/streams/testing/sse-test-helpers.js';
import { completionCorpus, honestReport } from '../../src/modules/usage-audit/testing/audit-corpus.js';
import { countSample } from '../../src/modules/usage-audit/usage-audit-counter.js';
import type { UsageAuditService } from '../../src/modules/usage-audit/usage-audit.service.js';
import { seededRandom } from '../../src/common/random/seeded-random.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { GPT4O } from '../support/billing-fixtures.js';
import type { TestApp } from '../support/test-app.js';
import type { TestWorker } from '../support/test-worker.js';
import { postAndCount, startAuditStack } from './support/audit-stack.js';

const HONEST = ['h1', 'h2', 'h3', 'h4'];
const INFLATION = new Map([
  ['x15', 0.15],
  ['x20', 0.2],
]);
const EVENTS_EACH = 60;

let t: TestApp;
let worker: TestWorker;
let audit: UsageAuditService;

beforeAll(async () => {
  ({ t, worker, audit } = await startAuditStack('usage_audit', { USAGE_AUDIT_HOLD: 'true' }, { userCreditUsd: '1000', contributors: [...HONEST, ...INFLATION.keys()] }));
}, 60_000);
afterAll(async () => {
  await worker?.close();
  await t?.close();
});

/** One streamed completion: content (and reasoning) in a few deltas, tool calls, then the provider's usage. */
function streamOf(completion: ReturnType<typeof completionCorpus>[number], completionTokens: number): string {
  const chunks: unknown[] = [];
  const pieces = completion.content.match(/[\s\S]{1,80}/g) ?? [];
  if (completion.reasoning) chunks.push(choiceChunk({ reasoning_content: completion.reasoning }, { model: 'gpt-4o' }));
  for (const piece of pieces) chunks.push(choiceChunk({ content: piece }, { model: 'gpt-4o' }));
  completion.toolCalls.forEach((call, index) =>
    chunks.push(choiceChunk({ tool_calls: [{ index, id: `call_${index}`, type: 'function', function: { name: call.name, arguments: call.arguments_raw } }] }, { model: 'gpt-4o' })),
  );
  chunks.push(choiceChunk({}, { model: 'gpt-4o', finish_reason: completion.toolCalls.length ? 'tool_calls' : 'stop' }));
  chunks.push({ object: 'chat.completion.chunk', model: 'gpt-4o', choices: [], usage: { prompt_tokens: 100, completion_tokens: completionTokens, total_tokens: 100 + completionTokens } });
  return sseBody(chunks);
}

async function snapshotMoney() {
  const db = t.app.get(DatabaseService);
  const accounts = await db.pool.query<{ code: string; balance: string }>('SELECT code, balance_atto::text AS balance FROM accounts ORDER BY code');
  const events = await db.pool.query<{ event_id: string; charge: string; payout: string }>('SELECT event_id, charge_atto::text AS charge, payout_atto::text AS payout FROM usage_events ORDER BY event_id');
  return { accounts: accounts.rows, events: events.rows };
}

describe('usage audit', () => {
  it('flags exactly the +15% and +20% contributors after their streams are counted, never an honest one', async () => {
    const corpus = completionCorpus(400, 11);
    const next = seededRandom(3);
    const posts: Array<() => Promise<unknown>> = [];
    for (let n = 0; n < EVENTS_EACH; n += 1) {
      for (const id of [...HONEST, ...INFLATION.keys()]) {
        const completion = corpus[Math.floor(next() * corpus.length)]!;
        const texts = [completion.content, completion.reasoning, ...completion.toolCalls.flatMap((c) => [c.name, c.arguments_raw])].filter((x) => x !== '');
        const counted = countSample({ event_id: 'x', contributor_id: id, model: GPT4O, occurred_at: new Date().toISOString(), reported_tokens: 0, texts })!.countedTokens;
        const honest = honestReport(counted, completion.kind, next);
        const reported = Math.round(honest * (1 + (INFLATION.get(id) ?? 0)));
        const body = streamOf(completion, reported);
        posts.push(() =>
          t.admin(t.http.post(`/v1/usage-events/stream?event_id=${id}-${n}&user_id=u_a&contributor_id=${id}&model=${encodeURIComponent(GPT4O)}`)).set('Content-Type', 'text/event-stream').send(body).expect(201),
        );
      }
    }
    await postAndCount(t, posts, 30_000);
    const db = t.app.get(DatabaseService);
    // No content is kept: only counts.
    const columns = await db.pool.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'usage_audit_samples'`);
    expect(columns.rows.map((c) => c.column_name)).not.toContain('content');

    const before = await snapshotMoney();
    const run = await audit.run();
    expect(run).toMatchObject({ groups: 6, flagged: 2, newlyFlagged: 2 });
    const res = await t.admin(t.http.get('/v1/admin/usage-audit')).expect(200);
    const rows = new Map<string, { flagged: boolean; events: number; median_ratio: string; model_median_ratio: string }>(res.body.data.map((r: { contributor_id: string }) => [r.contributor_id, r]));
    for (const id of HONEST) expect({ id, flagged: rows.get(id)!.flagged }).toEqual({ id, flagged: false });
    for (const id of INFLATION.keys()) {
      expect(rows.get(id)).toMatchObject({ flagged: true, events: EVENTS_EACH, flagged_since: expect.any(String) });
      expect(Number(rows.get(id)!.median_ratio) / Number(rows.get(id)!.model_median_ratio)).toBeGreaterThan(1.1);
    }
    // Announced once each, and held.
    const anomalies = await db.pool.query<{ data: { contributor_id: string; events: number } }>(`SELECT data FROM webhook_events WHERE type = 'contributor.usage_anomaly' ORDER BY data->>'contributor_id'`);
    expect(anomalies.rows.map((r) => r.data.contributor_id)).toEqual(['x15', 'x20']);
    const held = await db.pool.query<{ id: string }>('SELECT id FROM contributors WHERE under_review_since IS NOT NULL ORDER BY id');
    expect(held.rows.map((r) => r.id)).toEqual(['x15', 'x20']);
    // A second run announces nothing new.
    expect((await audit.run()).newlyFlagged).toBe(0);
    expect(await snapshotMoney()).toEqual(before);
  }, 120_000);

  it('a review clears (payouts resume, earlier events no longer count) or suspends; bad input is 400/404', async () => {
    await t.admin(t.http.post('/v1/admin/contributors/x15/review')).send({ decision: 'maybe', reason: 'x' }).expect(400);
    await t.admin(t.http.post('/v1/admin/contributors/x15/review')).send({ decision: 'clear', reason: '  ' }).expect(400);
    await t.admin(t.http.post('/v1/admin/contributors/nobody/review')).send({ decision: 'clear', reason: 'checked' }).expect(404);
    const cleared = await t.admin(t.http.post('/v1/admin/contributors/x15/review')).send({ decision: 'clear', reason: 'verified with the provider' }).expect(200);
    expect(cleared.body).toMatchObject({ contributor_id: 'x15', decision: 'clear', status: 'active' });
    const suspended = await t.admin(t.http.post('/v1/admin/contributors/x20/review')).send({ decision: 'suspend', reason: 'inflated counts' }).expect(200);
    expect(suspended.body).toMatchObject({ contributor_id: 'x20', status: 'suspended' });
    await audit.run();
    const rows = (await t.admin(t.http.get('/v1/admin/usage-audit?flagged=true')).expect(200)).body.data.map((r: { contributor_id: string }) => r.contributor_id);
    expect(rows).toEqual(['x20']);
    const contributors = (await t.admin(t.http.get('/v1/admin/contributors/x15')).expect(200)).body;
    expect(contributors.under_review_since).toBeNull();
    const log = await t.admin(t.http.get('/v1/admin/audit-log')).expect(200);
    const actions = log.body.data.map((e: { action: string }) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['contributor.review.clear', 'contributor.review.suspend']));
  });

  it('property: no sequence of audit runs and reviews changes any charge, payout or balance', async () => {
    const baseline = await snapshotMoney();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(fc.constant({ op: 'run' as const }), fc.record({ op: fc.constantFrom('clear' as const, 'suspend' as const), id: fc.constantFrom(...HONEST, ...INFLATION.keys()) })), { maxLength: 4 }), async (ops) => {
        for (const op of ops) {
          if (op.op === 'run') await audit.run();
          else await t.admin(t.http.post(`/v1/admin/contributors/${op.id}/review`)).send({ decision: op.op, reason: 'property' }).expect(200);
        }
        expect(await snapshotMoney()).toEqual(baseline);
      }),
      { numRuns: 6 },
    );
  });
});
