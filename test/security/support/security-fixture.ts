// One app per security test file, seeded through the public API: prices, contributors, a funded
// user, a billed event, an active hold, and one API key per role (plus a revoked one).
import { randomBytes } from 'node:crypto';
import { exampleEvent, seedBilling } from '../../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';

export const OWN_CONTRIBUTOR = 'c_own';
export const OTHER_CONTRIBUTOR = 'c_other';
/** Never registered: a contributor key must get the same 403 for it as for an existing other. */
export const GHOST_CONTRIBUTOR = 'c_ghost';
export const SEEDED_EVENT_ID = 'sec-seed-1';
export const SEEDED_HOLD_ID = 'sec-hold-active';

export interface SecurityKeys {
  admin: string;
  gateway: string;
  contributorOwn: string;
  revoked: string;
}

export interface SecurityFixture {
  t: TestApp;
  keys: SecurityKeys;
  /** Every secret shown by POST /v1/admin/api-keys: none may ever be returned again. */
  createdSecrets: string[];
}

/**
 * Key-guessing and bad-input tests send thousands of unauthenticated requests from one address:
 * the per-address auth failure limit is lifted here (it has its own test, rate-limit.e2e-spec.ts).
 */
// Webhook URLs are not resolved (no DNS query leaves the machine for a fuzzed host name); no
// worker runs here, so nothing is ever sent to a registered URL.
export const SECURITY_APP_ENV = { AUTH_FAILURES_PER_MINUTE: '1000000', WEBHOOK_ALLOW_PRIVATE: 'true' } as const;

export async function startSecurityFixture(label: string, env: Record<string, string> = {}): Promise<SecurityFixture> {
  const t = await startTestApp(label, { ...SECURITY_APP_ENV, ...env });
  // Listen once: supertest then reuses the address instead of opening a server per request.
  const server = t.app.getHttpServer() as import('node:http').Server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await seedBilling(t);
  for (const id of [OWN_CONTRIBUTOR, OTHER_CONTRIBUTOR]) {
    const address = `0x${randomBytes(20).toString('hex')}`;
    await t.admin(t.http.put(`/v1/admin/contributors/${id}`)).send({ tier: 'standard', payout_address: address }).expect(201);
  }
  await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: SEEDED_EVENT_ID, contributor_id: OWN_CONTRIBUTOR })).expect(201);
  await t.admin(t.http.post('/v1/holds')).send({ hold_id: SEEDED_HOLD_ID, user_id: 'u_42', amount_usd: '1', expires_in_seconds: 3600 }).expect(201);

  const createdSecrets: string[] = [];
  const createKey = async (body: Record<string, string>) => {
    const res = await t.admin(t.http.post('/v1/admin/api-keys')).send(body).expect(201);
    createdSecrets.push(res.body.key);
    return { id: res.body.id as string, key: res.body.key as string };
  };
  const admin = await createKey({ role: 'admin', name: 'sec admin' });
  const gateway = await createKey({ role: 'gateway', name: 'sec gateway' });
  const contributorOwn = await createKey({ role: 'contributor', contributor_id: OWN_CONTRIBUTOR, name: 'sec contributor' });
  const revoked = await createKey({ role: 'gateway', name: 'sec revoked' });
  await t.admin(t.http.delete(`/v1/admin/api-keys/${revoked.id}`)).expect(204);
  return { t, keys: { admin: admin.key, gateway: gateway.key, contributorOwn: contributorOwn.key, revoked: revoked.key }, createdSecrets };
}
