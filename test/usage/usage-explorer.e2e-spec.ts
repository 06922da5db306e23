// The admin usage explorer on a real app and database (api.md "Usage events"): every filter alone
// and combined against the events the test ingested, newest first, cursor paging, the CSV of the
// whole selection across several internal pages, the summary's exact sums, and 400s for bad input.
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { CSV_PAGE_ROWS } from '../../src/modules/usage/usage-explorer.service.js';
import { usageEventsPageSchema, usageSummarySchema } from '../../src/modules/usage/usage-explorer.schemas.js';
import { billingSuiteWithGateway, exampleEvent, GPT4O } from '../support/billing-fixtures.js';
import { parseCsvRecords, readText } from '../support/csv.js';
import { expectDeclaredAnswer } from '../support/declared-answer.js';
import { suiteSql } from '../support/suite-sql.js';

const CLAUDE = 'anthropic/claude-sonnet-4';
const UNPRICED = 'acme/no-price-yet';
const USERS = ['u_42', 'u_7', 'alice@example.com'];
const CONTRIBUTORS = ['c_std', 'c_prem'];
const MODELS = [GPT4O, CLAUDE];
/** Events the explorer is checked on: more than one CSV page, so the export pages internally. */
const EVENTS = CSV_PAGE_ROWS + 150;

interface Ingested {
  event_id: string;
  user_id: string;
  contributor_id: string;
  model: string;
  key_id: string | null;
  occurred_at: string;
  status: 'priced' | 'unpriced';
  prompt_tokens: number;
  completion_tokens: number;
  charge_atto: bigint;
  official_atto: bigint;
  payout_atto: bigint;
  margin_atto: bigint;
}

describe('GET /v1/admin/usage-events and /v1/admin/usage/summary', () => {
  const { t, gw } = billingSuiteWithGateway('usage_explorer', { userCreditUsd: '100000' });
  const sql = suiteSql(t);
  /** Newest first: the order the explorer promises (by id, the order events were recorded). */
  let newestFirst: Ingested[] = [];

  beforeAll(async () => {
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: CLAUDE, input_usd_per_mtok: '3', output_usd_per_mtok: '15', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    for (const user of USERS.slice(1)) await t.admin(t.http.post(`/v1/admin/users/${encodeURIComponent(user)}/credits`)).send({ amount_usd: '100000', reference: `seed-${user}` }).expect(201);
    const sent = Array.from({ length: EVENTS }, (_, i) =>
      exampleEvent({
        event_id: `ex-${String(i).padStart(5, '0')}`,
        user_id: USERS[i % USERS.length],
        contributor_id: CONTRIBUTORS[i % 2],
        model: i % 97 === 0 ? UNPRICED : MODELS[Math.floor(i / 2) % 2],
        // Five UTC days, a few seconds apart within each.
        occurred_at: new Date(Date.UTC(2026, 10, 25 + (i % 5), 12, 0, i % 60)).toISOString(),
        usage: { prompt_tokens: 100 + i, completion_tokens: 10 + (i % 50), cached_tokens: 0, reasoning_tokens: 0 },
      }),
    );
    const answers = new Map<string, Record<string, string>>();
    for (let i = 0; i < sent.length; i += 1000) {
      const res = await gw(t.http.post('/v1/usage-events/batch')).send({ events: sent.slice(i, i + 1000) }).expect(200);
      expect(res.body.results.every((r: { status: string }) => r.status === 'priced' || r.status === 'unpriced')).toBe(true);
    }
    // The amounts as each event's own answer states them (GET /v1/usage-events/:id).
    for (const e of sent.filter((_, i) => i % 97 === 0 || i < 4)) answers.set(e.event_id, (await gw(t.http.get(`/v1/usage-events/${e.event_id}`)).expect(200)).body);
    // key_id as gateways that pass it store it (ingestion of key_id lands with the budgets work).
    await sql.query(`UPDATE usage_events SET key_id = 'key-' || user_id || '-' || (right(event_id, 1)::int % 2) WHERE right(event_id, 1)::int % 3 <> 0`);
    const rows = await sql.query<{ event_id: string; key_id: string | null; status: 'priced' | 'unpriced'; charge_atto: string | null; official_atto: string | null; payout_atto: string | null; margin_atto: string | null }>(
      'SELECT event_id, key_id, status, charge_atto, official_atto, payout_atto, margin_atto FROM usage_events ORDER BY id DESC',
    );
    const byId = new Map(sent.map((e) => [e.event_id, e]));
    newestFirst = rows.rows.map((r) => {
      const e = byId.get(r.event_id)!;
      return {
        event_id: e.event_id,
        user_id: e.user_id as string,
        contributor_id: e.contributor_id as string,
        model: e.model as string,
        key_id: r.key_id,
        occurred_at: e.occurred_at as string,
        status: r.status,
        prompt_tokens: e.usage.prompt_tokens,
        completion_tokens: e.usage.completion_tokens,
        charge_atto: BigInt(r.charge_atto ?? 0),
        official_atto: BigInt(r.official_atto ?? 0),
        payout_atto: BigInt(r.payout_atto ?? 0),
        margin_atto: BigInt(r.margin_atto ?? 0),
      };
    });
    // The stored amounts are the ones the API answered for the event.
    for (const [id, body] of answers) {
      const row = newestFirst.find((r) => r.event_id === id)!;
      expect(row.status).toBe(body.status);
      if (body.status === 'priced') expect(formatAttoAsUsd(row.charge_atto)).toBe(body.charge_usd);
    }
    expect(newestFirst).toHaveLength(EVENTS);
  }, 120_000);

  const list = (query: string) => t.admin(t.http.get(`/v1/admin/usage-events?${query}`));

  /** Every page of a selection through next_cursor. */
  async function allPages(query: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: Array<{ event_id: string }>; next_cursor: string | null } } = await list(`${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`).expect(200);
      expectDeclaredAnswer(usageEventsPageSchema, res.body);
      ids.push(...res.body.data.map((e) => e.event_id));
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    return ids;
  }

  const FILTERS: Array<[string, (e: Ingested) => boolean]> = [
    ['', () => true],
    ['status=unpriced', (e) => e.status === 'unpriced'],
    ['status=priced', (e) => e.status === 'priced'],
    [`user_id=${encodeURIComponent('alice@example.com')}`, (e) => e.user_id === 'alice@example.com'],
    ['contributor_id=c_prem', (e) => e.contributor_id === 'c_prem'],
    [`model=${encodeURIComponent(CLAUDE)}`, (e) => e.model === CLAUDE],
    ['key_id=key-u_7-1', (e) => e.key_id === 'key-u_7-1'],
    ['from=2026-11-26T00:00:00Z&to=2026-11-28T00:00:00Z', (e) => e.occurred_at >= '2026-11-26T00:00:00' && e.occurred_at < '2026-11-28T00:00:00'],
    [`user_id=u_42&contributor_id=c_std&model=${encodeURIComponent(GPT4O)}&status=priced&from=2026-11-27T00:00:00Z`, (e) => e.user_id === 'u_42' && e.contributor_id === 'c_std' && e.model === GPT4O && e.status === 'priced' && e.occurred_at >= '2026-11-27'],
    ['key_id=key-u_42-0&to=2026-11-26T12:00:30Z', (e) => e.key_id === 'key-u_42-0' && e.occurred_at < '2026-11-26T12:00:30'],
    ['user_id=nobody', () => false],
  ];

  it.each(FILTERS)('lists exactly the events of "%s", newest first, through every page', async (query, keep) => {
    const expected = newestFirst.filter(keep).map((e) => e.event_id);
    expect(await allPages(query, 500)).toEqual(expected);
  });

  it('pages with small limits without a gap or a repeat', async () => {
    const expected = newestFirst.filter((e) => e.contributor_id === 'c_std').map((e) => e.event_id);
    expect(await allPages('contributor_id=c_std', 37)).toEqual(expected);
  });

  it('shows each event with its key, amounts and usage', async () => {
    const first = newestFirst.find((e) => e.status === 'priced' && e.key_id !== null)!;
    const res = await list(`user_id=${encodeURIComponent(first.user_id)}&limit=500`).expect(200);
    const body = res.body.data.find((e: { event_id: string }) => e.event_id === first.event_id);
    expect(body).toMatchObject({
      event_id: first.event_id,
      status: 'priced',
      key_id: first.key_id,
      model: first.model,
      occurred_at: first.occurred_at,
      usage: { prompt_tokens: first.prompt_tokens, completion_tokens: first.completion_tokens },
      charge_usd: formatAttoAsUsd(first.charge_atto),
      payout_usd: formatAttoAsUsd(first.payout_atto),
    });
  });

  it('streams the whole selection as CSV with Accept: text/csv, in the same order and amounts', async () => {
    for (const [query, keep] of [FILTERS[0]!, FILTERS[6]!, FILTERS[8]!]) {
      const res = await list(query).set('Accept', 'text/csv').buffer(true).parse(readText as never).expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      const records = parseCsvRecords(res.body as string);
      const expected = newestFirst.filter(keep);
      expect(records.map((r) => r.event_id)).toEqual(expected.map((e) => e.event_id));
      for (const [i, e] of expected.entries()) {
        expect(records[i]).toMatchObject({ user_id: e.user_id, contributor_id: e.contributor_id, key_id: e.key_id ?? '', model: e.model, status: e.status });
        expect(records[i]!.charge_usd).toBe(e.status === 'priced' ? formatAttoAsUsd(e.charge_atto) : '');
      }
    }
  });

  it('answers JSON when JSON is preferred, and CSV errors as JSON', async () => {
    const json = await list('limit=1').set('Accept', 'text/csv;q=0.5, application/json').expect(200);
    expect(json.body.data).toHaveLength(1);
    const bad = await list('status=nope').set('Accept', 'text/csv').expect(400);
    expect(bad.body.error.code).toBe('validation_failed');
  });

  const GROUPS: Array<[string, (e: Ingested) => string | null]> = [
    ['day', (e) => e.occurred_at.slice(0, 10)],
    ['model', (e) => e.model],
    ['user', (e) => e.user_id],
    ['contributor', (e) => e.contributor_id],
    ['key', (e) => e.key_id],
  ];

  /** The exact sums the summary must give, computed here from each event's own amounts. */
  function expectedSummary(events: Ingested[], keyOf: (e: Ingested) => string | null) {
    const sums = (rows: Ingested[]) => ({
      events: rows.length,
      prompt_tokens: rows.reduce((n, e) => n + e.prompt_tokens, 0),
      completion_tokens: rows.reduce((n, e) => n + e.completion_tokens, 0),
      official_usd: formatAttoAsUsd(rows.reduce((n, e) => n + e.official_atto, 0n)),
      charge_usd: formatAttoAsUsd(rows.reduce((n, e) => n + e.charge_atto, 0n)),
      payout_usd: formatAttoAsUsd(rows.reduce((n, e) => n + e.payout_atto, 0n)),
      margin_usd: formatAttoAsUsd(rows.reduce((n, e) => n + e.margin_atto, 0n)),
    });
    const priced = events.filter((e) => e.status === 'priced');
    const keys = [...new Set(priced.map(keyOf))].sort((a, b) => (a === null ? 1 : b === null ? -1 : Buffer.compare(Buffer.from(a), Buffer.from(b))));
    return { data: keys.map((key) => ({ key, ...sums(priced.filter((e) => keyOf(e) === key)) })), totals: sums(priced) };
  }

  it.each(GROUPS)('sums priced events by %s exactly, to the atto', async (group, keyOf) => {
    const res = await t.admin(t.http.get(`/v1/admin/usage/summary?group_by=${group}`)).expect(200);
    expectDeclaredAnswer(usageSummarySchema, res.body);
    expect(res.body).toEqual({ group_by: group, ...expectedSummary(newestFirst, keyOf) });
  });

  it('sums with filters, and the totals add up the groups', async () => {
    const query = `group_by=day&user_id=u_7&model=${encodeURIComponent(CLAUDE)}&from=2026-11-26T00:00:00Z&to=2026-11-29T00:00:00Z`;
    const res = await t.admin(t.http.get(`/v1/admin/usage/summary?${query}`)).expect(200);
    const keep = (e: Ingested) => e.user_id === 'u_7' && e.model === CLAUDE && e.occurred_at >= '2026-11-26' && e.occurred_at < '2026-11-29';
    expect(res.body).toEqual({ group_by: 'day', ...expectedSummary(newestFirst.filter(keep), (e) => e.occurred_at.slice(0, 10)) });
    const total = res.body.data.reduce((n: bigint, g: { charge_usd: string }) => n + parseUsdToAtto(g.charge_usd), 0n);
    expect(formatAttoAsUsd(total)).toBe(res.body.totals.charge_usd);
    const none = await t.admin(t.http.get('/v1/admin/usage/summary?group_by=user&user_id=nobody')).expect(200);
    expect(none.body).toEqual({ group_by: 'user', data: [], totals: { events: 0, prompt_tokens: 0, completion_tokens: 0, official_usd: '0', charge_usd: '0', payout_usd: '0', margin_usd: '0' } });
  });

  it.each([
    ['/v1/admin/usage-events?status=refunded', 'status'],
    ['/v1/admin/usage-events?limit=0', 'limit'],
    ['/v1/admin/usage-events?limit=501', 'limit'],
    ['/v1/admin/usage-events?from=yesterday', 'from'],
    ['/v1/admin/usage-events?from=2026-11-27T00:00:00Z&to=2026-11-27T00:00:00Z', 'to'],
    ['/v1/admin/usage-events?cursor=not-a-cursor', 'cursor'],
    ['/v1/admin/usage-events?sort=asc', null],
    ['/v1/admin/usage/summary', 'group_by'],
    ['/v1/admin/usage/summary?group_by=week', 'group_by'],
    ['/v1/admin/usage/summary?group_by=day&to=2026-01-01T00:00:00Z&from=2026-02-01T00:00:00Z', 'to'],
  ])('%s is a 400 naming %s', async (path, field) => {
    const res = await t.admin(t.http.get(path)).expect(400);
    expect(res.body.error.code).toBe('validation_failed');
    if (field !== null) expect(JSON.stringify(res.body.error.details)).toContain(field);
  });

  it('is for admins only', async () => {
    await gw(t.http.get('/v1/admin/usage-events')).expect(403);
    await gw(t.http.get('/v1/admin/usage/summary?group_by=day')).expect(403);
  });
});
