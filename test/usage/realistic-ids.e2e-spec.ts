// Ids as real gateways send them (api.md "Conventions", Ids; issue 34 item 3): e-mail addresses,
// names with spaces, accents and slashes, upstream ids past 200 characters. Any Unicode text without
// control characters, 1 to 256 characters, compared exactly as sent, percent-encoded in paths. One
// that breaks the rule is a 400 naming the field (a `rejected` entry in a batch, the others billed),
// never a 5xx. Real Postgres and Redis.
import { billingSuite, expectLedgerClean, exampleEvent } from '../support/billing-fixtures.js';

const t = billingSuite('realistic_ids');
const USERS = ['alice+x@example.com', 'Jane Doe', 'josé@exämple.org', 'acme/team', '北京 用户 🙂'];
const ID_256 = `resp_${'a'.repeat(251)}`;
const ID_257 = `resp_${'a'.repeat(252)}`;
const CONTRIBUTOR = 'acme/team eu';
const path = (...segments: string[]) => segments.map(encodeURIComponent).join('/');

beforeAll(async () => {
  await t.admin(t.http.put(`/v1/admin/contributors/${path(CONTRIBUTOR)}`)).send({ tier: 'standard', payout_address: '0x3333333333333333333333333333333333333333' }).expect(201);
  for (const user of USERS) await t.admin(t.http.post(`/v1/admin/users/${path(user)}/credits`)).send({ amount_usd: '10', reference: `seed ${user}` }).expect(201);
});

function expectRefused(res: { status: number; body: { error?: { code: string; details?: Array<{ field: string }> } } }, field: string) {
  expect({ status: res.status, code: res.body.error?.code, fields: res.body.error?.details?.map((d) => d.field) }).toEqual({ status: 400, code: 'validation_failed', fields: [field] });
}

describe('realistic ids are accepted and kept exactly as sent', () => {
  it('credits and balances of users named by e-mail, with spaces, accents, slashes and emoji (ids in the path percent-encoded)', async () => {
    for (const user of USERS) {
      const balance = await t.admin(t.http.get(`/v1/users/${path(user)}/balance`)).expect(200);
      expect(balance.body).toMatchObject({ user_id: user, balance_usd: '10' });
    }
    // Compared exactly: no trimming, no case folding, no Unicode normalisation.
    for (const other of ['jane doe', 'Jane Doe ', 'jose\u0301@exämple.org']) await t.admin(t.http.get(`/v1/users/${path(other)}/balance`)).expect(404);
  });

  it('single events with such user and contributor ids and a 256-character event id; read back by percent-encoded id', async () => {
    for (const [i, user] of USERS.entries()) {
      const eventId = i === 0 ? ID_256 : `evt ${user} #${i}`;
      const res = await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: eventId, user_id: user, contributor_id: CONTRIBUTOR })).expect(201);
      expect(res.body).toMatchObject({ event_id: eventId, user_id: user, contributor_id: CONTRIBUTOR, status: 'priced' });
      const read = await t.admin(t.http.get(`/v1/usage-events/${path(eventId)}`)).expect(200);
      expect(read.body).toMatchObject({ event_id: eventId, user_id: user });
    }
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: ID_256, user_id: USERS[0], contributor_id: CONTRIBUTOR })).expect(200);
    const earnings = await t.admin(t.http.get(`/v1/contributors/${path(CONTRIBUTOR)}/balance`)).expect(200);
    expect(earnings.body.contributor_id).toBe(CONTRIBUTOR);
  });

  it('holds: made, read and released by a hold id with spaces, a slash and accents', async () => {
    const holdId = 'hold für Jane/1 ✓';
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: holdId, user_id: 'Jane Doe', amount_usd: '1' }).expect(201);
    expect((await t.admin(t.http.get(`/v1/holds/${path(holdId)}`)).expect(200)).body).toMatchObject({ hold_id: holdId, user_id: 'Jane Doe', status: 'active' });
    await t.admin(t.http.post(`/v1/holds/${path(holdId)}/release`)).expect(200);
    expect((await t.admin(t.http.get(`/v1/holds/${path(holdId)}`)).expect(200)).body.status).toBe('released');
    await expectLedgerClean(t);
  });
});

describe('contributors with long Unicode ids', () => {
  it('pages the admin contributor list past a 256-emoji id (its cursor comes back and is taken)', async () => {
    const longest = '🙂'.repeat(256);
    await t.admin(t.http.put(`/v1/admin/contributors/${path(longest)}`)).send({ tier: 'standard', payout_address: '0x4444444444444444444444444444444444444444' }).expect(201);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Array<{ id: string }>; next_cursor: string | null } } = await t.admin(t.http.get('/v1/admin/contributors').query({ limit: 1, ...(cursor ? { cursor } : {}) })).expect(200);
      seen.push(...page.body.data.map((c) => c.id));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(expect.arrayContaining([longest, CONTRIBUTOR, 'c_std']));
  });
});

describe('ids that break the rule: 400 naming the field, or a rejected batch entry; never a 5xx', () => {
  const BAD: Array<[string, string]> = [
    ['257 characters', ID_257],
    ['NUL', 'evt\u0000x'],
    ['a C0 control (tab)', 'evt\tx'],
    ['a C1 control (NEL)', 'evt\u0085x'],
    ['empty', ''],
  ];

  it.each(BAD)('a single event with an event_id of %s', async (_name, bad) => {
    expectRefused(await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: bad })), 'event_id');
    expectRefused(await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: `ok-${_name}`, user_id: bad })), 'user_id');
  });

  it('a batch: each bad entry is rejected naming its field, the good ones are billed', async () => {
    const events = [
      exampleEvent({ event_id: 'batch-good-1', user_id: 'alice+x@example.com' }),
      ...BAD.map(([, bad], i) => exampleEvent({ event_id: bad === '' ? '' : `${bad}-${i}` })),
      exampleEvent({ event_id: 'batch-bad-user', user_id: 'u\u009f' }),
      exampleEvent({ event_id: 'batch-bad-hold', hold_id: 'h'.repeat(257) }),
      exampleEvent({ event_id: 'batch-good-2', contributor_id: CONTRIBUTOR }),
    ];
    const res = await t.admin(t.http.post('/v1/usage-events/batch')).send({ events }).expect(200);
    const results = res.body.results as Array<{ status: string; error?: { details: Array<{ field: string }> } }>;
    expect(results.map((r) => r.status)).toEqual(['priced', ...BAD.map(() => 'rejected'), 'rejected', 'rejected', 'priced']);
    expect(results.slice(1, -1).map((r) => r.error!.details.map((d) => d.field))).toEqual([...BAD.map(() => ['event_id']), ['user_id'], ['hold_id']]);
  });

  it('holds, credits and reads by id (a NUL anywhere in a URL is refused before routing, naming the URL)', async () => {
    for (const [, bad] of BAD.filter(([, b]) => b !== '')) {
      const inPath = (field: string) => (bad.includes('\u0000') ? '(url)' : field);
      expectRefused(await t.admin(t.http.post('/v1/holds')).send({ hold_id: bad, user_id: 'u_42', amount_usd: '1' }), 'hold_id');
      expectRefused(await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: '1', reference: bad }), 'reference');
      expectRefused(await t.admin(t.http.get(`/v1/usage-events/${path(bad)}`)), inPath('event_id'));
      expectRefused(await t.admin(t.http.get(`/v1/holds/${path(bad)}`)), inPath('hold_id'));
      expectRefused(await t.admin(t.http.post(`/v1/holds/${path(bad)}/release`)), inPath('hold_id'));
      expectRefused(await t.admin(t.http.get(`/v1/users/${path(bad)}/balance`)), inPath('id'));
      expectRefused(await t.admin(t.http.get(`/v1/contributors/${path(bad)}/balance`)), inPath('id'));
      expectRefused(await t.admin(t.http.put(`/v1/admin/contributors/${path(bad)}`)).send({ tier: 'standard', payout_address: '0x3333333333333333333333333333333333333333' }), inPath('id'));
    }
    await expectLedgerClean(t);
  });
});
