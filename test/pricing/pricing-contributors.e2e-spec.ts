import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DatabaseService } from '../../src/database/database.service.js';
import { ContributorsService } from '../../src/modules/contributors/contributors.service.js';
import { PricingService } from '../../src/modules/pricing/pricing.service.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const FIXTURE_TEXT = readFileSync(fileURLToPath(new URL('../fixtures/prices/model_prices_and_context_window.json', import.meta.url)), 'utf8');
const ATTO = 10n ** 18n;
const ADDRESS_LOWER = '0x52908400098527886e0f7030069857d2e4169ee7';
const ADDRESS_CHECKSUMMED = '0x52908400098527886E0F7030069857D2E4169EE7';
const OTHER_ADDRESS_LOWER = '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359';

describe('pricing and contributors (admin API)', () => {
  let t: TestApp;
  let gatewayKey: string;

  beforeAll(async () => {
    t = await startTestApp('pricing_contributors');
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const auditActions = async (action: string) =>
    (await t.app.get(DatabaseService).prisma.auditLog.findMany({ where: { action }, orderBy: { id: 'asc' } }));

  describe('prices', () => {
    it('creates a version (201), replays an identical one (200) and refuses a different one (409)', async () => {
      const body = {
        model: 'acme/model-a',
        input_usd_per_mtok: '2.5',
        output_usd_per_mtok: '10.000001',
        cached_input_usd_per_mtok: '1.25',
        effective_from: '2026-01-01T00:00:00Z',
      };
      const created = await t.admin(t.http.post('/v1/admin/prices')).send(body).expect(201);
      expect(created.body).toEqual({
        id: expect.stringMatching(/^\d+$/),
        model: 'acme/model-a',
        input_usd_per_mtok: '2.5',
        output_usd_per_mtok: '10.000001',
        cached_input_usd_per_mtok: '1.25',
        variant: 'standard',
        cache_write_5m_usd_per_mtok: null,
        cache_write_1h_usd_per_mtok: null,
        input_audio_usd_per_mtok: null,
        cached_input_audio_usd_per_mtok: null,
        output_audio_usd_per_mtok: null,
        input_image_usd_per_mtok: null,
        output_image_usd_per_mtok: null,
        reasoning_usd_per_mtok: null,
        tiers: [],
        web_search_usd_per_call: null,
        web_search_billing: null,
        request_usd: null,
        effective_from: '2026-01-01T00:00:00.000Z',
        source: 'api',
        created_at: expect.any(String),
      });
      const replay = await t.admin(t.http.post('/v1/admin/prices')).send({ ...body, effective_from: '2026-01-01T01:00:00+01:00' }).expect(200);
      expect(replay.body.id).toBe(created.body.id);
      const conflict = await t.admin(t.http.post('/v1/admin/prices')).send({ ...body, input_usd_per_mtok: '2.6' }).expect(409);
      expect(conflict.body.error.code).toBe('conflict');

      const audits = await auditActions('price.create');
      expect(audits).toHaveLength(1);
      expect(audits[0]).toMatchObject({ actorRole: 'admin', target: `price:${created.body.id}` });
    });

    it('settles concurrent identical creates into one version (one 201, the rest replays)', async () => {
      const body = { model: 'acme/race', input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-02-01T00:00:00Z' };
      const results = await Promise.all(Array.from({ length: 6 }, () => t.admin(t.http.post('/v1/admin/prices')).send(body)));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    });

    it('defaults effective_from to now and cached_input to null', async () => {
      const before = Date.now();
      const res = await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'acme/now', input_usd_per_mtok: '0', output_usd_per_mtok: '1' }).expect(201);
      expect(res.body.cached_input_usd_per_mtok).toBeNull();
      const effectiveFromMs = Date.parse(res.body.effective_from);
      expect(effectiveFromMs).toBeGreaterThanOrEqual(before);
      expect(effectiveFromMs).toBeLessThanOrEqual(Date.now());
    });

    it.each([
      [{ input_usd_per_mtok: 2.5 }, 'input_usd_per_mtok', /decimal string/],
      [{ output_usd_per_mtok: 10 }, 'output_usd_per_mtok', /decimal string/],
      [{ cached_input_usd_per_mtok: 1.25 }, 'cached_input_usd_per_mtok', /decimal string/],
      [{ input_usd_per_mtok: '0.0000001' }, 'input_usd_per_mtok', /at most 6 decimals/],
      [{ input_usd_per_mtok: '-1' }, 'input_usd_per_mtok', /negative/],
      [{ input_usd_per_mtok: '2.5e-6' }, 'input_usd_per_mtok', /plain decimal/],
      [{ input_usd_per_mtok: '1000000.000001' }, 'input_usd_per_mtok', /at most 1000000/],
      [{ input_usd_per_mtok: undefined }, 'input_usd_per_mtok', /required/],
      [{ effective_from: 'yesterday' }, 'effective_from', /RFC 3339/],
      [{ effective_from: '2026-11-29T10:00:00' }, 'effective_from', /RFC 3339/],
      [{ effective_from: '2026-11-29T10:00:00.123456Z' }, 'effective_from', /millisecond/],
      [{ model: 'has space' }, 'model', /whitespace/],
      [{ model: '' }, 'model', /.+/],
      [{ model: 'm'.repeat(201) }, 'model', /.+/],
      [{ extra: '1' }, 'extra', /unknown field/],
    ])('refuses %j with 400 naming the field', async (patch, field, message) => {
      const body = { model: 'acme/bad', input_usd_per_mtok: '1', output_usd_per_mtok: '2', ...patch };
      const res = await t.admin(t.http.post('/v1/admin/prices')).send(body).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
      const issue = (res.body.error.details as { field: string; message: string }[]).find((d) => d.field === field);
      expect(issue?.message).toMatch(message);
    });

    it('accepts the sane maximum', async () => {
      const res = await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'acme/max', input_usd_per_mtok: '1000000', output_usd_per_mtok: '999999.999999' }).expect(201);
      expect(res.body.output_usd_per_mtok).toBe('999999.999999');
    });

    it('lists the version in force per model with the next one, and all versions of one model', async () => {
      const post = (model: string, input: string, effectiveFrom: string) =>
        t.admin(t.http.post('/v1/admin/prices')).send({ model, input_usd_per_mtok: input, output_usd_per_mtok: '1', effective_from: effectiveFrom }).expect(201);
      await post('acme/versioned', '3', '2099-01-01T00:00:00Z');
      await post('acme/versioned', '1', '2020-01-01T00:00:00Z');
      await post('acme/versioned', '2', '2021-01-01T00:00:00Z');
      await post('acme/future-only', '5', '2098-01-01T00:00:00Z');

      const list = await t.admin(t.http.get('/v1/admin/prices')).expect(200);
      const versioned = (list.body.data as { model: string }[]).find((p) => p.model === 'acme/versioned');
      expect(versioned).toMatchObject({ input_usd_per_mtok: '2', effective_from: '2021-01-01T00:00:00.000Z', next: { input_usd_per_mtok: '3' } });
      expect((list.body.data as { model: string }[]).some((p) => p.model === 'acme/future-only')).toBe(false);
      expect(list.body.upcoming).toEqual([expect.objectContaining({ model: 'acme/future-only', input_usd_per_mtok: '5' })]);

      const versions = await t.admin(t.http.get('/v1/admin/prices?model=acme/versioned')).expect(200);
      expect((versions.body.data as { input_usd_per_mtok: string }[]).map((v) => v.input_usd_per_mtok)).toEqual(['1', '2', '3']);
      await t.admin(t.http.get('/v1/admin/prices?model=nope')).expect(200, { data: [] });
      await t.admin(t.http.get('/v1/admin/prices?model=has%20space')).expect(400);
    });

    it('gives the ingestion path a price book that sees a new price at once', async () => {
      const pricing = t.app.get(PricingService);
      const model = 'acme/book';
      expect((await pricing.getPriceBook()).priceAt(model, new Date())).toBeNull();
      await t.admin(t.http.post('/v1/admin/prices')).send({ model, input_usd_per_mtok: '0.000001', output_usd_per_mtok: '7', effective_from: '2026-06-01T00:00:00Z' }).expect(201);
      const book = await pricing.getPriceBook(); // invalidated by the create: no 250 ms wait
      expect(book.priceAt(model, new Date('2026-05-31T23:59:59.999Z'))).toBeNull();
      expect(book.priceAt(model, new Date('2026-06-01T00:00:00.000Z'))).toMatchObject({ inputAttoPerMtok: 10n ** 12n, outputAttoPerMtok: 7n * ATTO, cachedInputAttoPerMtok: null });
      expect(await pricing.getPriceBookFresh()).toBe(book); // unchanged catalog: same object, no reload
    });

    it('refuses gateway keys on every admin price route with 403', async () => {
      const asGateway = (req: ReturnType<typeof t.http.get>) => req.set('Authorization', `Bearer ${gatewayKey}`);
      expect((await asGateway(t.http.post('/v1/admin/prices')).send({ model: 'x', input_usd_per_mtok: '1', output_usd_per_mtok: '1' }).expect(403)).body.error.code).toBe('forbidden');
      await asGateway(t.http.get('/v1/admin/prices')).expect(403);
      await asGateway(t.http.post('/v1/admin/prices/import')).set('Content-Type', 'application/json').send('{}').expect(403);
    });
  });

  describe('LiteLLM import', () => {
    const importAt = (effectiveFrom: string | null, text: string = FIXTURE_TEXT) =>
      t.admin(t.http.post(`/v1/admin/prices/import${effectiveFrom ? `?effective_from=${encodeURIComponent(effectiveFrom)}` : ''}`)).set('Content-Type', 'application/json').send(text);

    it('imports the fixture exactly, and is idempotent', async () => {
      const first = await importAt('2026-07-24T00:00:00Z').expect(201);
      // 214 models as 407 versions (their flex, priority, batch, us, fast, eu and search-size variants).
      expect(first.body).toMatchObject({ effective_from: '2026-07-24T00:00:00.000Z', imported: 407, unchanged: 0, catalog: { models: 214, versions: 407, tiers: 97 } });
      // Which models and why: src/modules/pricing/litellm-import.spec.ts.
      expect(first.body.catalog).toMatchObject({ skipped_models: 4, skipped_by_code: { zero_priced: 2, not_token_priced: 2 } });
      expect(first.body.skipped).toContainEqual({ model: 'gpt-realtime-whisper', code: 'not_token_priced', reason: 'priced per input_cost_per_second, not per token' });

      const gpt4o = await t.admin(t.http.get('/v1/admin/prices?model=gpt-4o')).expect(200);
      expect((gpt4o.body.data as { variant: string }[]).map((p) => p.variant).sort()).toEqual(['batch', 'priority', 'standard']);
      expect(gpt4o.body.data.find((p: { variant: string }) => p.variant === 'standard')).toEqual(
        expect.objectContaining({ input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '1.25', source: 'litellm' }),
      );
      const deepseek = await t.admin(t.http.get('/v1/admin/prices?model=deepseek-chat')).expect(200);
      expect(deepseek.body.data[0]).toMatchObject({ input_usd_per_mtok: '0.28', output_usd_per_mtok: '0.42', cached_input_usd_per_mtok: '0.028' });
      const o1pro = await t.admin(t.http.get('/v1/admin/prices?model=o1-pro')).expect(200);
      expect(o1pro.body.data.find((p: { variant: string }) => p.variant === 'standard')).toMatchObject({ input_usd_per_mtok: '150', output_usd_per_mtok: '600', cached_input_usd_per_mtok: null });

      const again = await importAt('2026-07-24T00:00:00Z').expect(200);
      expect(again.body).toMatchObject({ imported: 0, unchanged: 407 });
      const later = await importAt(null).expect(200); // now: the versions in force are identical
      expect(later.body).toMatchObject({ imported: 0, unchanged: 407 });
      expect(await t.app.get(DatabaseService).prisma.price.count({ where: { source: 'litellm' } })).toBe(407);
      expect(await auditActions('price.import')).toHaveLength(3);
    });

    it('adds a version only for the versions whose price changed, and skips a conflicting one', async () => {
      const changed = FIXTURE_TEXT.replace(/("gpt-4o": \{\s*"cache_read_input_token_cost": )1\.25e-06/, '$11.2e-06');
      expect(changed).not.toBe(FIXTURE_TEXT);
      // gpt-4o standard, and its batch variant, which lists no cache price of its own.
      const res = await importAt('2026-08-01T00:00:00Z', changed).expect(201);
      expect(res.body).toMatchObject({ imported: 2, unchanged: 407 - 2 });
      const conflicting = changed.replace(/("gpt-4o": \{\s*"cache_read_input_token_cost": )1\.2e-06/, '$11.1e-06');
      const conflict = await importAt('2026-08-01T00:00:00Z', conflicting).expect(200);
      expect(conflict.body.skipped).toContainEqual({ model: 'gpt-4o', variant: 'standard', code: 'conflict', reason: expect.stringMatching(/already starts at effective_from/) });
      expect(conflict.body.skipped).toContainEqual(expect.objectContaining({ model: 'gpt-4o', variant: 'batch', code: 'conflict' }));
      const book = await t.app.get(PricingService).getPriceBookFresh();
      expect(book.priceAt('gpt-4o', new Date('2026-07-31T00:00:00Z'))?.cachedInputAttoPerMtok).toBe(1_250_000_000_000_000_000n);
      expect(book.priceAt('gpt-4o', new Date('2026-08-01T00:00:00Z'))?.cachedInputAttoPerMtok).toBe(1_200_000_000_000_000_000n);
    });

    it('reports models needing more than 6 decimals per Mtok as skipped', async () => {
      const doc = '{"acme/fine": {"input_cost_per_token": 1.0000001e-06, "output_cost_per_token": 2e-06}, "acme/ok": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}}';
      const res = await importAt('2026-09-01T00:00:00Z', doc).expect(201);
      expect(res.body.imported).toBe(1);
      expect(res.body.skipped).toEqual([{ model: 'acme/fine', code: 'precision', reason: 'input_cost_per_token 1.0000001e-06 needs more than 6 decimals' }]);
    });

    it('refuses bad documents, media types, sizes and timestamps', async () => {
      expect((await importAt(null, '{"a": ').expect(400)).body.error.code).toBe('validation_failed');
      await importAt(null, '[1, 2]').expect(400);
      await importAt('not-a-time').expect(400);
      const wrongType = await t.admin(t.http.post('/v1/admin/prices/import')).set('Content-Type', 'text/plain').send('{}').expect(415);
      expect(wrongType.body.error.code).toBe('unsupported_media_type');
      // Routes ignore case and a trailing slash (as they did on Express); the raw-body exemption must too.
      const doc = '{"acme/slash": {"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}}';
      await t.admin(t.http.post('/v1/admin/prices/import/?effective_from=2026-10-01T00:00:00Z')).set('Content-Type', 'application/json').send(doc).expect(201);
      await t.admin(t.http.post('/V1/Admin/Prices/Import?effective_from=2026-10-01T00:00:00Z')).set('Content-Type', 'application/json').send(doc).expect(200);
      const huge = `{"pad": "${'x'.repeat(8 * 1024 * 1024)}"}`;
      expect((await importAt(null, huge).expect(413)).body.error.code).toBe('payload_too_large');
    });
  });

  describe('contributors', () => {
    const put = (id: string, body: object) => t.admin(t.http.put(`/v1/admin/contributors/${id}`)).send(body);

    it('registers (201) with a checksummed address, replays (200) and updates (200)', async () => {
      const created = await put('c_1', { tier: 'standard', payout_address: ADDRESS_LOWER }).expect(201);
      expect(created.body).toEqual({
        id: 'c_1',
        tier: 'standard',
        payout_address: ADDRESS_CHECKSUMMED,
        status: 'active',
        flagged_reason: null,
        // Contributor trust: a first address is unproven and has no cool-down.
        payout_address_proven: false,
        payout_address_proven_at: null,
        payout_address_changed_at: null,
        payout_address_payable_from: null,
        under_review_since: null,
        created_at: expect.any(String),
        updated_at: created.body.created_at,
      });
      const replay = await put('c_1', { tier: 'standard', payout_address: ADDRESS_CHECKSUMMED }).expect(200);
      expect(replay.body.updated_at).toBe(created.body.updated_at);
      const suspended = await put('c_1', { tier: 'standard', payout_address: OTHER_ADDRESS_LOWER, status: 'suspended' }).expect(200);
      expect(suspended.body).toMatchObject({ status: 'suspended', payout_address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' });
      const keepsStatus = await put('c_1', { tier: 'standard', payout_address: ADDRESS_LOWER }).expect(200);
      expect(keepsStatus.body.status).toBe('suspended');

      const audits = await t.app.get(DatabaseService).prisma.auditLog.findMany({ where: { target: 'contributor:c_1' }, orderBy: { id: 'asc' } });
      expect(audits.map((a) => a.action)).toEqual(['contributor.create', 'contributor.update', 'contributor.update']);
      expect(audits[1]).toMatchObject({ before: { status: 'active' }, after: { status: 'suspended' } });
    });

    it('settles concurrent registrations of one id into one contributor', async () => {
      const results = await Promise.all(Array.from({ length: 5 }, () => put('c_race', { tier: 'premium', payout_address: ADDRESS_LOWER })));
      expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
      expect(await t.app.get(DatabaseService).prisma.contributorTier.count({ where: { contributorId: 'c_race' } })).toBe(1);
    });

    it('applies a tier change from now on and keeps the old tier for earlier events', async () => {
      await put('c_tier', { tier: 'standard', payout_address: ADDRESS_LOWER }).expect(201);
      const contributors = t.app.get(ContributorsService);
      expect((await contributors.getTierBook()).tierAt('c_tier', new Date('2001-01-01T00:00:00Z'))).toBe('standard');
      const beforeChange = new Date();
      await new Promise((resolve) => setTimeout(resolve, 5));
      await put('c_tier', { tier: 'premium', payout_address: ADDRESS_LOWER }).expect(200);
      const rows = await t.app.get(DatabaseService).prisma.contributorTier.findMany({ where: { contributorId: 'c_tier' }, orderBy: { id: 'asc' } });
      expect(rows.map((r) => [r.tier, r.effectiveFrom.getTime() === 0])).toEqual([
        ['standard', true],
        ['premium', false],
      ]);
      const book = await contributors.getTierBook(); // invalidated by the PUT
      expect(book.tierAt('c_tier', beforeChange)).toBe('standard');
      expect(book.tierAt('c_tier', new Date(Date.now() + 1_000))).toBe('premium');
      expect(book.tierAt('c_unknown', new Date())).toBeNull();
      const update = (await auditActions('contributor.update')).find((a) => a.target === 'contributor:c_tier');
      expect(update).toMatchObject({ before: { tier: 'standard' }, after: { tier: 'premium', tier_effective_from: expect.any(String) } });
    });

    it.each([
      [{ tier: 'standard', payout_address: '0x123' }, 'payout_address'],
      [{ tier: 'standard', payout_address: '0x52908400098527886E0F7030069857D2E4169Ee7' }, 'payout_address'],
      [{ tier: 'standard', payout_address: 12 }, 'payout_address'],
      [{ tier: 'gold', payout_address: ADDRESS_LOWER }, 'tier'],
      [{ tier: 'standard', payout_address: ADDRESS_LOWER, status: 'deleted' }, 'status'],
    ])('refuses %j with 400 naming the field', async (body, field) => {
      const res = await put('c_bad', body).expect(400);
      expect((res.body.error.details as { field: string }[]).map((d) => d.field)).toContain(field);
    });

    it('refuses malformed ids', async () => {
      await put('has%09tab', { tier: 'standard', payout_address: ADDRESS_LOWER }).expect(400);
      await put('x'.repeat(257), { tier: 'standard', payout_address: ADDRESS_LOWER }).expect(400);
    });

    it('reads one contributor and lists active ones for settlement', async () => {
      await put('c_read', { tier: 'premium', payout_address: ADDRESS_CHECKSUMMED }).expect(201);
      const one = await t.admin(t.http.get('/v1/admin/contributors/c_read')).expect(200);
      expect(one.body).toMatchObject({ id: 'c_read', tier: 'premium', payout_address: ADDRESS_CHECKSUMMED });
      expect((await t.admin(t.http.get('/v1/admin/contributors/c_missing')).expect(404)).body.error.code).toBe('not_found');

      const active = await t.app.get(ContributorsService).listForSettlement();
      expect(active.map((c) => c.id)).toContain('c_read');
      expect(active.map((c) => c.id)).not.toContain('c_1'); // suspended above
    });

    it('refuses gateway keys with 403', async () => {
      await t.http.put('/v1/admin/contributors/c_gw').set('Authorization', `Bearer ${gatewayKey}`).send({ tier: 'standard', payout_address: ADDRESS_LOWER }).expect(403);
      await t.http.get('/v1/admin/contributors/c_1').set('Authorization', `Bearer ${gatewayKey}`).expect(403);
    });
  });

  it('clears a settlement flag on request or with a new payout address, audited', async () => {
    const address = '0x4444444444444444444444444444444444444444';
    await t.admin(t.http.put('/v1/admin/contributors/c_flag')).send({ tier: 'standard', payout_address: address }).expect(201);
    const db = t.app.get(DatabaseService).prisma;
    await db.contributor.update({ where: { id: 'c_flag' }, data: { flaggedReason: 'usdc_transfer_refused' } });
    const same = await t.admin(t.http.put('/v1/admin/contributors/c_flag')).send({ tier: 'standard', payout_address: address }).expect(200);
    expect(same.body.flagged_reason).toBe('usdc_transfer_refused');
    const cleared = await t.admin(t.http.put('/v1/admin/contributors/c_flag')).send({ tier: 'standard', payout_address: address, clear_flag: true }).expect(200);
    expect(cleared.body.flagged_reason).toBeNull();
    await db.contributor.update({ where: { id: 'c_flag' }, data: { flaggedReason: 'usdc_transfer_refused' } });
    const moved = await t.admin(t.http.put('/v1/admin/contributors/c_flag')).send({ tier: 'standard', payout_address: '0x5555555555555555555555555555555555555555' }).expect(200);
    expect(moved.body.flagged_reason).toBeNull();
    const audits = await db.auditLog.findMany({ where: { target: 'contributor:c_flag', action: 'contributor.update' } });
    expect(audits).toHaveLength(2);
    expect(audits[0]!.before).toMatchObject({ flagged_reason: 'usdc_transfer_refused' });
  });

  it('documents the new routes in the OpenAPI document', async () => {
    const res = await t.http.get('/docs-json').expect(200);
    for (const path of ['/v1/admin/prices', '/v1/admin/prices/import', '/v1/admin/contributors/{id}']) {
      expect(res.body.paths[path]).toBeDefined();
    }
  });
});
