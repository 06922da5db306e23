// The SDK quick starts of docs/integrations.md, run as they stand (each ```js block, as a gateway's
// own module) against the packed SDK, the real OpenAI SDK / AI SDK, an upstream replaying an SSE
// fixture and the real API: each bills the event id it names.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { installPackedSdk } from './support/packed-sdk.js';
import { startSseUpstream, type SseUpstream } from './support/sse-upstream.js';

const run = promisify(execFile);
const GUIDE = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'integrations.md'), 'utf8');
const QUICK_STARTS = [...GUIDE.matchAll(/```js\n([\s\S]*?)```/g)].map((match) => match[1]!);

describe('docs/integrations.md SDK quick starts', () => {
  let t: TestApp;
  let upstream: SseUpstream;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp('sdk_docs');
    await t.app.listen(0, '127.0.0.1');
    await seedBilling(t);
    // The quick starts bill contributor c_7.
    await t.admin(t.http.put('/v1/admin/contributors/c_7')).send({ tier: 'standard', payout_address: '0x3333333333333333333333333333333333333333' }).expect(201);
    const key = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'docs' }).expect(201)).body.key as string;
    upstream = await startSseUpstream();
    dir = mkdtempSync(join(tmpdir(), 'ledger-sdk-docs-'));
    installPackedSdk(dir, ['openai', 'ai', '@ai-sdk/openai']);
    env = { LEDGER_URL: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`, LEDGER_GATEWAY_KEY: key, UPSTREAM_URL: upstream.url, UPSTREAM_KEY: 'sk-upstream' };
  });
  afterAll(async () => {
    await upstream?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('has the three quick starts', () => {
    expect(QUICK_STARTS).toHaveLength(3);
  });

  it.each(QUICK_STARTS.map((code, index) => [index, code] as const))('quick start %i runs and bills the call it names', async (index, code) => {
    const file = join(dir, `quick-start-${index}.mjs`);
    writeFileSync(file, code);
    await run(process.execPath, [file], { cwd: dir, env: { ...process.env, ...env }, timeout: 30_000 });
    const eventId = /(gw1-req-\d+)/.exec(code)![1]!;
    const billed = (await t.admin(t.http.get(`/v1/usage-events/${eventId}`)).expect(200)).body;
    expect(billed).toMatchObject({ event_id: eventId, status: 'priced', user_id: 'u_42', contributor_id: 'c_7', model: 'openai/gpt-4o' });
    expect(Object.keys(upstream.calls.at(-1)!.headers).filter((name) => name.startsWith('x-ledger-'))).toEqual([]);
  });
});
