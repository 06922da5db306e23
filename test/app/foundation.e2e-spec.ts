import { jest } from '@jest/globals';
import { ApiKeysRepository } from '../../src/modules/auth/api-keys.repository.js';
import { AuthService } from '../../src/modules/auth/auth.service.js';
import { testAppForSuite } from '../support/test-app.js';

describe('foundation: errors, auth, operations', () => {
  const t = testAppForSuite('foundation');

  it('serves liveness, readiness (Postgres and Redis up) and metrics', async () => {
    await t.http.get('/health').expect(200, { status: 'ok' });
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.checks.postgres.status).toBe('up');
    expect(ready.body.checks.redis.status).toBe('up');
    // No chain configured here: nothing was probed, so it must not claim `up`.
    expect(ready.body.checks.rpc).toEqual({ status: 'disabled' });
    const metrics = await t.http.get('/metrics').expect(200);
    expect(metrics.text).toContain('http_requests_total');
  });

  it('answers unknown routes with 404 in the api.md error shape', async () => {
    const res = await t.http.get('/v1/nope').expect(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'route not found' } });
  });

  it('publishes a valid OpenAPI document', async () => {
    const res = await t.http.get('/docs-json').expect(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.paths['/v1/admin/api-keys']).toBeDefined();
  });

  it('refuses missing, malformed and unknown keys with 401', async () => {
    const none = await t.http.post('/v1/admin/api-keys').send({ role: 'gateway' }).expect(401);
    expect(none.body.error.code).toBe('unauthenticated');
    await t.http.post('/v1/admin/api-keys').set('Authorization', 'Basic abc').send({ role: 'gateway' }).expect(401);
    await t.http.post('/v1/admin/api-keys').set('Authorization', 'Bearer lk_gw_notarealkey123').send({ role: 'gateway' }).expect(401);
  });

  it('creates keys, refuses the wrong role with 403 and a revoked key with 401', async () => {
    const created = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'gw-1' }).expect(201);
    expect(created.body).toMatchObject({ role: 'gateway', contributor_id: null, name: 'gw-1' });
    const gatewayKey: string = created.body.key;
    const forbidden = await t.http
      .post('/v1/admin/api-keys')
      .set('Authorization', `Bearer ${gatewayKey}`)
      .send({ role: 'admin' })
      .expect(403);
    expect(forbidden.body.error.code).toBe('forbidden');
    await t.admin(t.http.delete(`/v1/admin/api-keys/${created.body.id}`)).expect(204);
    const revoked = await t.http.post('/v1/admin/api-keys').set('Authorization', `Bearer ${gatewayKey}`).send({ role: 'admin' }).expect(401);
    expect(revoked.body.error.code).toBe('unauthenticated');
    await t.admin(t.http.delete('/v1/admin/api-keys/00000000-0000-4000-8000-000000000000')).expect(404);
  });

  it('looks a key up once for requests that miss the cache together, and forgets it when revoked', async () => {
    const created = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'gw-herd' }).expect(201);
    const auth = t.app.get(AuthService);
    const lookups = jest.spyOn(t.app.get(ApiKeysRepository), 'findActiveByHash');
    try {
      const principals = await Promise.all(Array.from({ length: 20 }, () => auth.authenticate(created.body.key)));
      expect(principals).toEqual(Array(20).fill({ keyId: created.body.id, role: 'gateway', contributorId: null }));
      expect(lookups).toHaveBeenCalledTimes(1);
      await t.admin(t.http.delete(`/v1/admin/api-keys/${created.body.id}`)).expect(204);
      expect(await auth.authenticate(created.body.key)).toBeNull();
      expect(lookups).toHaveBeenCalledTimes(2);
    } finally {
      lookups.mockRestore();
    }
  });

  it('requires contributor_id exactly for contributor keys', async () => {
    const missing = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'contributor' }).expect(400);
    expect(missing.body.error.details[0].field).toBe('contributor_id');
    await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', contributor_id: 'c1' }).expect(400);
    const ok = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c1' }).expect(201);
    expect(ok.body.contributor_id).toBe('c1');
  });

  it('rejects bad bodies with clear 4xx and writes nothing', async () => {
    const malformed = await t.admin(t.http.post('/v1/admin/api-keys')).set('Content-Type', 'application/json').send('{"role":').expect(400);
    expect(malformed.body.error.code).toBe('validation_failed');
    const wrongType = await t.admin(t.http.post('/v1/admin/api-keys')).set('Content-Type', 'text/plain').send('role=gateway').expect(415);
    expect(wrongType.body.error.code).toBe('unsupported_media_type');
    const unknownField = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', extra: 1 }).expect(400);
    expect(unknownField.body.error.details).toContainEqual({ field: 'extra', message: 'unknown field' });
    const huge = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'x'.repeat(3 * 1024 * 1024) }).expect(413);
    expect(huge.body.error.code).toBe('payload_too_large');
  });
});
