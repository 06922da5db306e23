// The outbox under faults, against the real API behind a proxy that injects them: a report that
// keeps failing never holds back the others, a 401 is retried later (not dead), a dead letter can be
// listed and sent again, an outbox that cannot be written sends directly and says so, and what a
// crash leaves on disk never blocks delivery (#34 items 6 and 16, #36 item 2).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { LedgerClient, ledgerFetch, LedgerOutboxWriteError } from '../../sdk/src/index.js';
import { startLedgerProxy, type LedgerProxy } from './support/ledger-proxy.js';
import { startSdkTestbed, type SdkTestbed } from './support/sdk-testbed.js';

const MESSAGES = [{ role: 'user' as const, content: 'What is the weather in San Francisco?' }];

/** Read-only for this process: chmod, and (root ignores modes) the immutable attribute. */
function makeReadOnly(dir: string): () => void {
  chmodSync(dir, 0o500);
  const root = process.getuid?.() === 0;
  if (root) execFileSync('chattr', ['+i', dir]);
  return () => {
    if (root) execFileSync('chattr', ['-i', dir]);
    chmodSync(dir, 0o700);
  };
}

describe('SDK outbox under faults', () => {
  let bed: SdkTestbed;
  let proxy: LedgerProxy;
  let dir: string;
  const clients: LedgerClient[] = [];

  beforeAll(async () => {
    bed = await startSdkTestbed('sdk_outbox_faults', { 'gpt-4o': ['2.5', '10'] });
    proxy = await startLedgerProxy(bed.ledgerUrl);
  });
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'ledger-outbox-faults-'));
    proxy.faults.length = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  afterAll(async () => {
    for (const client of clients) client.close();
    await proxy?.close();
    await bed?.close();
  });

  function gateway(options: { contributor?: string; onReportError?: (error: Error) => void } = {}) {
    const ledger = new LedgerClient({ baseUrl: proxy.url, apiKey: bed.gatewayKey, outboxDir: join(dir, 'outbox'), outboxIntervalMs: 3_600_000, retry: { attemptsMax: 1 }, onReportError: options.onReportError ?? (() => undefined) });
    clients.push(ledger);
    const fetch = ledgerFetch(globalThis.fetch, { ledger, attribution: (request) => ({ event_id: request.headers.get('x-call-id')!, user_id: 'u_42', contributor_id: options.contributor ?? 'c_std', model: 'gpt-4o' }) });
    const openai = new OpenAI({ baseURL: `${bed.upstream.url}/v1`, apiKey: 'sk', fetch, maxRetries: 0 });
    const call = async (id: string) => {
      const stream = await openai.chat.completions.create({ model: 'fixture:02-openai-usage-final-empty-choices', messages: MESSAGES, stream: true }, { headers: { 'x-call-id': id } });
      for await (const _chunk of stream) void _chunk;
      await ledger.flush();
    };
    return { ledger, call };
  }
  const eventOf = (query: URLSearchParams) => query.get('event_id');

  it('a report the ledger keeps answering 503 never holds back the others (#34 item 6)', async () => {
    proxy.faults.push({ matches: (r) => r.path === '/v1/usage-events/stream', status: 503 });
    const { ledger, call } = gateway();
    for (let i = 0; i < 5; i += 1) await call(`f503-${i}`);
    expect(await ledger.outbox.pending()).toBe(5);
    // The ledger is back, except for the oldest report.
    proxy.faults[0] = { matches: (r) => eventOf(r.query) === 'f503-0', status: 503 };
    expect(await ledger.flush()).toEqual({ delivered: 4, pending: 1, dead: 0 });
    for (let i = 1; i < 5; i += 1) expect(await bed.event(`f503-${i}`)).toMatchObject({ status: 'priced' });
    proxy.faults.length = 0;
    expect(await ledger.flush()).toEqual({ delivered: 1, pending: 0, dead: 0 });
    expect(await bed.event('f503-0')).toMatchObject({ status: 'priced' });
  });

  it('a 401 keeps the report for later instead of dead-lettering it (#34 item 6)', async () => {
    proxy.faults.push({ matches: (r) => r.path.startsWith('/v1/usage-events'), status: 401 });
    const { ledger, call } = gateway();
    await call('f401');
    expect(await ledger.outbox.dead()).toEqual([]);
    expect(await ledger.outbox.pending()).toBe(1);
    proxy.faults.length = 0;
    expect(await ledger.flush()).toEqual({ delivered: 1, pending: 0, dead: 0 });
    expect(await bed.event('f401')).toMatchObject({ status: 'priced' });
  });

  it('lists a dead letter with the ledger answer and sends it again once the contributor exists (#36 item 2)', async () => {
    const errors: Error[] = [];
    const { ledger, call } = gateway({ contributor: 'c_late', onReportError: (error) => errors.push(error) });
    await call('fdead');
    const dead = await ledger.outbox.dead();
    expect(dead).toEqual([expect.objectContaining({ event_id: 'fdead', kind: 'stream', error: expect.objectContaining({ code: 'unknown_contributor', status: 422 }) })]);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(['unknown_contributor']);
    await bed.t.admin(bed.t.http.put('/v1/admin/contributors/c_late')).send({ tier: 'standard', payout_address: '0x4444444444444444444444444444444444444444' }).expect(201);
    expect(await ledger.outbox.retryDead([dead[0]!.id])).toEqual({ delivered: 1, pending: 0, dead: 0 });
    expect(await ledger.outbox.dead()).toEqual([]);
    expect(await bed.event('fdead')).toMatchObject({ status: 'priced', contributor_id: 'c_late' });
  });

  it('an outbox that cannot be written (read-only) sends the report directly and says so (#34 item 6)', async () => {
    const errors: Error[] = [];
    const { call } = gateway({ onReportError: (error) => errors.push(error) });
    const restore = makeReadOnly(join(dir, 'outbox'));
    try {
      await call('freadonly');
    } finally {
      restore();
    }
    expect(errors).toEqual([expect.any(LedgerOutboxWriteError)]);
    expect(errors[0]!.message).toMatch(/sending it directly/);
    expect(await bed.event('freadonly')).toMatchObject({ status: 'priced' });
  });

  it('removes partial files a kill -9 left and moves an unreadable file aside, delivering the rest (#34 item 16)', async () => {
    const first = gateway();
    proxy.faults.push({ matches: () => true, status: 503 });
    await first.call('fcrash-kept');
    first.ledger.close();
    proxy.faults.length = 0;
    const outbox = join(dir, 'outbox');
    writeFileSync(join(outbox, 'tmp', '00000000000001-000001-abc.report.json.4242.tmp'), '{"kind":"stream","event_id":"half');
    writeFileSync(join(outbox, '00000000000000-000000-torn.report.json'), '{"kind":"str');
    mkdirSync(join(outbox, '00000000000000-000001-dir.report.json'));
    const errors: Error[] = [];
    const second = gateway({ onReportError: (error) => errors.push(error) });
    // Delivered by the pass at construction (flush waits for it).
    expect(await second.ledger.flush()).toMatchObject({ pending: 0, dead: 0 });
    expect(await bed.event('fcrash-kept')).toMatchObject({ status: 'priced' });
    expect(readdirSync(join(outbox, 'tmp'))).toEqual([]);
    expect(readdirSync(join(outbox, 'unreadable')).sort()).toEqual(['00000000000000-000000-torn.report.json', '00000000000000-000001-dir.report.json']);
    expect(errors.map((error) => error.message)).toEqual([expect.stringMatching(/not a readable report/), expect.stringMatching(/not a readable report/)]);
  });
});
