// The usage writer's two paths write the same rows. Five rules exist twice, in TypeScript for the
// statement-by-statement path and as composed SQL for the one-statement path (posting, the
// low-balance crossing, the unpriced announcement, rollups, USD text of atto): two apps on two
// fresh databases, one writing every group of up to 64 events without holds as one statement
// (the default), the other always statement by statement (USAGE_ONE_STATEMENT_EVENTS_MAX=0), get
// identical property-generated groups (several users and contributors, a priced and an unpriced
// model, holds, replays, users crossing the low-balance threshold) and must end with equal
// answers, events, journal, balances, holds, outbox and rollups.
import fc from 'fast-check';
import pg from 'pg';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PRICED = 'openai/gpt-4o';
const USERS = 3;
const CONTRIBUTORS = 3;
const ENV = { USER_LOW_BALANCE_USD: '0.05', WEBHOOK_ALLOW_PRIVATE: 'true' };

interface EventSpec {
  user: number;
  contributor: number;
  priced: boolean;
  prompt: number;
  completion: number;
  cached: number;
  hold: boolean;
  /** Sent again (same body) later in the group: a replay. */
  replay: boolean;
}

const eventSpec = fc.record({
  user: fc.integer({ min: 0, max: USERS - 1 }),
  contributor: fc.integer({ min: 0, max: CONTRIBUTORS - 1 }),
  priced: fc.integer({ min: 0, max: 4 }).map((n) => n > 0),
  prompt: fc.integer({ min: 0, max: 4000 }),
  completion: fc.integer({ min: 0, max: 2000 }),
  cached: fc.integer({ min: 0, max: 100 }),
  hold: fc.boolean(),
  replay: fc.boolean(),
});
const groups = fc.array(fc.array(eventSpec, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 6 });

/** Rows of one run (ids prefixed by it) that either path wrote, in a stable order and without ids or clocks. */
async function rowsOf(sql: pg.Client, prefix: string) {
  const like = `${prefix}%`;
  const q = async (text: string) => (await sql.query(text, [like])).rows;
  return {
    events: await q(`SELECT event_id, user_id, contributor_id, model, occurred_at, status, prompt_tokens, completion_tokens, cached_tokens,
        hold_id, price_variant, contributor_tier, user_markup, payout_multiplier, official_atto::text, charge_atto::text, payout_atto::text, margin_atto::text
      FROM usage_events WHERE event_id LIKE $1 ORDER BY event_id`),
    journal: await q(`SELECT kind, ref, account_codes, amounts_atto::text[] FROM journal_entries WHERE ref LIKE $1 ORDER BY kind, ref`),
    accounts: await q(`SELECT code, kind, owner_id, balance_atto::text, held_atto::text FROM accounts WHERE owner_id LIKE $1 ORDER BY code`),
    holds: await q(`SELECT hold_id, user_id, status, amount_atto::text FROM holds WHERE hold_id LIKE $1 ORDER BY hold_id`),
    outbox: await q(`SELECT type, data, dedupe_key FROM webhook_events WHERE data->>'user_id' LIKE $1 OR data->>'model' LIKE $1 ORDER BY type, data::text`),
    rollups: await q(`SELECT contributor_id, day, model, events, prompt_tokens, completion_tokens, cached_tokens, official_atto::text, earned_atto::text,
        charge_atto::text, margin_atto::text FROM contributor_usage_daily WHERE contributor_id LIKE $1 ORDER BY contributor_id, day, model`),
  };
}

describe('usage write paths: one statement vs statement by statement', () => {
  let oneStatement: TestApp;
  let byStatement: TestApp;
  let sqlOne: pg.Client;
  let sqlBy: pg.Client;
  const gatewayKeys = new Map<TestApp, string>();

  beforeAll(async () => {
    [oneStatement, byStatement] = await Promise.all([startTestApp('paths_one', ENV), startTestApp('paths_by', { ...ENV, USAGE_ONE_STATEMENT_EVENTS_MAX: '0' })]);
    for (const t of [oneStatement, byStatement]) {
      await t.admin(t.http.post('/v1/admin/prices')).send({ model: PRICED, input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '1.25', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
      await t.admin(t.http.post('/v1/admin/webhooks')).send({ url: 'http://127.0.0.1:9/hook', events: ['user.balance_low', 'usage.unpriced'] }).expect(201);
      gatewayKeys.set(t, (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'gw' }).expect(201)).body.key);
    }
    sqlOne = new pg.Client({ connectionString: oneStatement.databaseUrl });
    sqlBy = new pg.Client({ connectionString: byStatement.databaseUrl });
    await Promise.all([sqlOne.connect(), sqlBy.connect()]);
  });
  afterAll(async () => {
    await Promise.all([sqlOne?.end(), sqlBy?.end()]);
    await Promise.all([oneStatement?.close(), byStatement?.close()]);
  });

  it('writes the same rows, balances, outbox and rollups for the same groups', async () => {
    let run = 0;
    const seen = { lowBalance: 0, unpriced: 0, holdCaptures: 0, replays: 0 };
    await fc.assert(
      fc.asyncProperty(groups, async (spec) => {
        run += 1;
        const prefix = `r${run}x${Date.now().toString(36)}-`;
        const user = (i: number) => `${prefix}u${i}`;
        const contributor = (i: number) => `${prefix}c${i}`;
        const unpriced = `${prefix}model/unpriced`;
        /** Every request of the run, sent to one app; its answers, in order. */
        const play = async (t: TestApp) => {
          const gw = (req: ReturnType<TestApp['http']['post']>) => req.set('Authorization', `Bearer ${gatewayKeys.get(t)!}`);
          const answers: unknown[] = [];
          for (let c = 0; c < CONTRIBUTORS; c += 1) {
            await t.admin(t.http.put(`/v1/admin/contributors/${contributor(c)}`)).send({ tier: c === 1 ? 'premium' : 'standard', payout_address: `0x${String(c + 1).repeat(40)}` }).expect(201);
          }
          for (let u = 0; u < USERS; u += 1) await t.admin(t.http.post(`/v1/admin/users/${user(u)}/credits`)).send({ amount_usd: '0.1', reference: `${prefix}seed-${u}` }).expect(201);
          for (const [g, group] of spec.entries()) {
            const events: Array<Record<string, unknown>> = [];
            for (const [i, e] of group.entries()) {
              const holdId = e.hold ? `${prefix}h${g}-${i}` : undefined;
              if (holdId) {
                const hold = await gw(t.http.post('/v1/holds')).send({ hold_id: holdId, user_id: user(e.user), amount_usd: '0.01' });
                answers.push({ hold: holdId, status: hold.status });
                if (hold.status !== 201) continue;
              }
              const body = {
                event_id: `${prefix}e${g}-${i}`,
                user_id: user(e.user),
                contributor_id: contributor(e.contributor),
                model: e.priced ? PRICED : unpriced,
                occurred_at: `2026-11-${String(20 + (g % 5)).padStart(2, '0')}T${String(10 + i).padStart(2, '0')}:00:00Z`,
                usage: { prompt_tokens: e.prompt, completion_tokens: e.completion, cached_tokens: Math.min(e.cached, e.prompt), reasoning_tokens: 0 },
                ...(holdId ? { hold_id: holdId } : {}),
              };
              events.push(body);
              if (e.replay) events.push(body);
            }
            if (events.length === 0) continue;
            const response = await gw(t.http.post('/v1/usage-events/batch')).send({ events });
            answers.push({ status: response.status, results: response.body.results?.map((r: { status?: string; event_id?: string; error?: { code?: string } }) => [r.event_id, r.status ?? r.error?.code]) });
          }
          return answers;
        };
        const answersOne = await play(oneStatement);
        const answersBy = await play(byStatement);
        expect(answersOne).toEqual(answersBy);
        const [rowsOne, rowsBy] = await Promise.all([rowsOf(sqlOne, prefix), rowsOf(sqlBy, prefix)]);
        expect(rowsOne).toEqual(rowsBy);
        // The property is about the paths only if they wrote something worth comparing.
        expect(rowsOne.events.length).toBeGreaterThan(0);
        seen.lowBalance += rowsOne.outbox.filter((r) => r.type === 'user.balance_low').length;
        seen.unpriced += rowsOne.outbox.filter((r) => r.type === 'usage.unpriced').length;
        seen.holdCaptures += rowsOne.holds.filter((r) => r.status === 'captured').length;
        seen.replays += spec.flat().filter((e) => e.replay).length;
      }),
      // The first runs are fixed: every twin rule is exercised whatever the random ones draw.
      {
        numRuns: 6,
        examples: [
          [[Array.from({ length: 12 }, (_, i) => ({ user: i % 2, contributor: i % 3, priced: i !== 5, prompt: 4000, completion: 2000, cached: 50, hold: false, replay: i === 3 }))]],
          [[Array.from({ length: 4 }, (_, i) => ({ user: 0, contributor: i % 2, priced: true, prompt: 4000, completion: 2000, cached: 0, hold: i % 2 === 0, replay: false }))]],
        ],
      },
    );
    expect(seen.lowBalance).toBeGreaterThan(0);
    expect(seen.unpriced).toBeGreaterThan(0);
    expect(seen.holdCaptures).toBeGreaterThan(0);
    expect(seen.replays).toBeGreaterThan(0);
  }, 120_000);
});
