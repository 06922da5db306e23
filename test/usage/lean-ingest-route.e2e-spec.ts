// POST /v1/usage-events is served by the lean handler (usage-ingest-route.ts), not Nest's
// per-request pipeline, and answers exactly as the declared route: the guard's 401/403, the body
// schema's 400 with field paths, the controller's 201/200/409, in the api.md shape.
import { jest } from '@jest/globals';
import { AuthGuard } from '../../src/modules/auth/auth.guard.js';
import { zodIssuesToFields } from '../../src/common/errors/zod-issues.js';
import { usageEventSchema } from '../../src/modules/usage/usage.schemas.js';
import { billingSuiteWithGateway, exampleEvent } from '../support/billing-fixtures.js';

describe('POST /v1/usage-events without the Nest pipeline', () => {
  const { t, gw } = billingSuiteWithGateway('leaningest');
  let canActivate: ReturnType<typeof jest.spyOn>;
  beforeEach(() => {
    canActivate = jest.spyOn(AuthGuard.prototype, 'canActivate');
  });
  afterEach(() => canActivate.mockRestore());

  it('bills through the lean handler (Nest guard not run for it) and still guards other routes through Nest', async () => {
    const created = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'lean-1' })).expect(201);
    expect(created.body).toMatchObject({ event_id: 'lean-1', status: 'priced', charge_usd: '0.008125' });
    expect(created.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(created.headers.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    expect(canActivate).not.toHaveBeenCalled();
    await gw(t.http.get('/v1/usage-events/lean-1')).expect(200);
    expect(canActivate).toHaveBeenCalledTimes(1);
  });

  it('replays with 200 and Idempotent-Replayed, and refuses a changed payload with 409', async () => {
    const replay = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'lean-1' })).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const changed = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'lean-1', model: 'openai/other' })).expect(409);
    expect(changed.body.error.code).toBe('idempotency_conflict');
  });

  it('answers the guard errors in the api.md shape: no key 401, unknown key 401, a contributor key 403', async () => {
    const none = await t.http.post('/v1/usage-events').send(exampleEvent({ event_id: 'lean-401' })).expect(401);
    expect(none.body).toEqual({ error: { code: 'unauthenticated', message: 'missing or malformed Authorization: Bearer <key> header' } });
    const unknown = await t.http.post('/v1/usage-events').set('Authorization', 'Bearer clk_unknownunknownunknown').send(exampleEvent({ event_id: 'lean-401b' })).expect(401);
    expect(unknown.body.error.code).toBe('unauthenticated');
    const contributorKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c_std' }).expect(201)).body.key;
    const forbidden = await t.http.post('/v1/usage-events').set('Authorization', `Bearer ${contributorKey}`).send(exampleEvent({ event_id: 'lean-403' })).expect(403);
    expect(forbidden.body).toEqual({ error: { code: 'forbidden', message: 'this route is for gateway, admin keys' } });
  });

  it('answers a body the schema refuses with the pipe\'s 400 and field paths, writing nothing', async () => {
    const body = exampleEvent({ event_id: 'lean-400', usage: { prompt_tokens: -1, completion_tokens: 1 }, extra: true });
    const bad = await gw(t.http.post('/v1/usage-events')).send(body).expect(400);
    // What the global ZodValidationPipe's exception becomes in the filter, for the same body.
    const refused = usageEventSchema.safeParse(body);
    expect(refused.success).toBe(false);
    expect(bad.body).toEqual({ error: { code: 'validation_failed', message: 'request validation failed', details: zodIssuesToFields(refused.error!) } });
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(expect.arrayContaining(['extra', 'usage.prompt_tokens']));
    const noBody = await gw(t.http.post('/v1/usage-events')).expect(400);
    expect(noBody.body.error.code).toBe('validation_failed');
    await gw(t.http.get('/v1/usage-events/lean-400')).expect(404);
  });
});
