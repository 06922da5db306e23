// GET /v1/admin/api-keys and GET /v1/admin/users (api.md "Keys", "Spend controls"): what the
// console's API keys and Users screens list, on a real app and database.
import { apiKeyListSchema } from '../../src/modules/auth/auth.schemas.js';
import { userListSchema } from '../../src/modules/users/users.schemas.js';
import { expectDeclaredAnswer } from '../support/declared-answer.js';
import { testAppForSuite } from '../support/test-app.js';

describe('admin lists: api keys and users', () => {
  const t = testAppForSuite('admin_lists');

  /** Every page of a listing through next_cursor. */
  async function allPages<T>(path: string, limit: number): Promise<T[]> {
    const rows: T[] = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: T[]; next_cursor: string | null } } = await t
        .admin(t.http.get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`))
        .expect(200);
      rows.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor !== null);
    return rows;
  }

  describe('GET /v1/admin/api-keys', () => {
    const created: Array<{ id: string; key: string; role: string; signing_secret?: string }> = [];

    beforeAll(async () => {
      await t.admin(t.http.put('/v1/admin/contributors/c_a')).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
      const bodies = [{ role: 'gateway', name: 'gw one' }, { role: 'gateway', signed: true }, { role: 'contributor', contributor_id: 'c_a', name: 'portal' }, { role: 'admin', name: 'ops' }];
      for (const body of bodies) created.push((await t.admin(t.http.post('/v1/admin/api-keys')).send(body).expect(201)).body);
      await t.admin(t.http.delete(`/v1/admin/api-keys/${created[3]!.id}`)).expect(204);
    });

    it('lists every key newest first with what it is and when it was used, never a key or a secret', async () => {
      const res = await t.admin(t.http.get('/v1/admin/api-keys')).expect(200);
      expectDeclaredAnswer(apiKeyListSchema, res.body);
      expect(res.body.data.map((k: { id: string }) => k.id)).toEqual(created.map((k) => k.id).reverse());
      expect(res.body.data[0]).toMatchObject({ name: 'ops', role: 'admin', contributor_id: null, signed: false, last_used_at: null });
      expect(res.body.data[0].revoked_at).toEqual(expect.any(String));
      expect(res.body.data[1]).toMatchObject({ role: 'contributor', contributor_id: 'c_a', revoked_at: null });
      expect(res.body.data[2]).toMatchObject({ role: 'gateway', signed: true, name: null });
      const text = JSON.stringify(res.body);
      for (const key of created) {
        expect(text).not.toContain(key.key);
        if (key.signing_secret) expect(text).not.toContain(key.signing_secret);
      }
      for (const row of res.body.data) expect(Object.keys(row)).not.toEqual(expect.arrayContaining(['key']));
    });

    it('records the last use of a key', async () => {
      const gateway = created[0]!;
      const before = new Date().toISOString();
      await t.http.get('/v1/me').set('Authorization', `Bearer ${gateway.key}`).expect(200);
      const listed = async () => (await t.admin(t.http.get('/v1/admin/api-keys?role=gateway')).expect(200)).body.data.find((k: { id: string }) => k.id === gateway.id);
      // The write is off the request's path: read until it has landed.
      let row = await listed();
      for (let i = 0; i < 50 && row.last_used_at === null; i += 1) row = await listed();
      expect(row.last_used_at).toEqual(expect.any(String));
      // The database's clock and this process's are one machine's: the use is after `before`, to the second.
      expect(row.last_used_at.slice(0, 19) >= before.slice(0, 19)).toBe(true);
    });

    it('filters by role and contributor, and pages without a gap or a repeat', async () => {
      const gateways = await allPages<{ id: string; role: string }>('/v1/admin/api-keys?role=gateway', 1);
      expect(gateways.map((k) => k.id)).toEqual([created[1]!.id, created[0]!.id]);
      const portal = await allPages<{ id: string }>('/v1/admin/api-keys?contributor_id=c_a', 50);
      expect(portal.map((k) => k.id)).toEqual([created[2]!.id]);
      expect((await allPages<{ id: string }>('/v1/admin/api-keys', 3)).map((k) => k.id)).toEqual(created.map((k) => k.id).reverse());
    });

    it.each(['role=owner', 'limit=0', 'limit=501', 'cursor=abc', 'name=x'])('?%s is a 400', async (query) => {
      const res = await t.admin(t.http.get(`/v1/admin/api-keys?${query}`)).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    });

    it('is for admins only', async () => {
      await t.http.get('/v1/admin/api-keys').set('Authorization', `Bearer ${created[0]!.key}`).expect(403);
    });
  });

  describe('GET /v1/admin/users', () => {
    const USERS = ['u_b', 'U_a', 'team:x', 'ua', 'u_c'];

    beforeAll(async () => {
      for (const [i, user] of USERS.entries()) {
        await t.admin(t.http.post(`/v1/admin/users/${encodeURIComponent(user)}/credits`)).send({ amount_usd: `${i + 1}.5`, reference: `lists-${user}` }).expect(201);
      }
      const gw = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key;
      await t.http.post('/v1/holds').set('Authorization', `Bearer ${gw}`).send({ hold_id: 'h-lists', user_id: 'u_c', amount_usd: '0.25' }).expect(201);
    });

    it('lists users in byte order of their ids with exact balances, held and available', async () => {
      const res = await t.admin(t.http.get('/v1/admin/users')).expect(200);
      expectDeclaredAnswer(userListSchema, res.body);
      expect(res.body.data.map((u: { user_id: string }) => u.user_id)).toEqual(['U_a', 'team:x', 'u_b', 'u_c', 'ua']);
      expect(res.body.data.find((u: { user_id: string }) => u.user_id === 'u_c')).toMatchObject({ balance_usd: '5.5', held_usd: '0.25', available_usd: '5.25' });
      expect(res.body.data.find((u: { user_id: string }) => u.user_id === 'u_b')).toMatchObject({ balance_usd: '1.5', held_usd: '0', available_usd: '1.5' });
    });

    it('searches ids by any case, with LIKE characters taken literally, and pages', async () => {
      const ids = async (q: string) => (await t.admin(t.http.get(`/v1/admin/users?q=${encodeURIComponent(q)}`)).expect(200)).body.data.map((u: { user_id: string }) => u.user_id);
      expect(await ids('U_')).toEqual(['U_a', 'u_b', 'u_c']);
      expect(await ids('%')).toEqual([]);
      expect(await ids('team')).toEqual(['team:x']);
      expect((await allPages<{ user_id: string }>('/v1/admin/users', 2)).map((u) => u.user_id)).toEqual(['U_a', 'team:x', 'u_b', 'u_c', 'ua']);
    });

    it.each(['q=', 'limit=0', 'cursor=%%%', 'role=x'])('?%s is a 400', async (query) => {
      const res = await t.admin(t.http.get(`/v1/admin/users?${query}`)).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    });
  });
});
