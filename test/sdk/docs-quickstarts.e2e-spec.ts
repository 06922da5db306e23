// The quick start of docs/integrations.md, run as it stands: every ```js block is saved under the
// file name on its first line, in a fresh folder holding the packed SDK (the tarball the doc's sh
// step installs) and the real clients, and run in order against the real API (nothing seeded but
// the gateway key the sh step makes) and an upstream replaying recorded answers, which the clients
// reach through their own base-URL variables (OPENAI_BASE_URL, ANTHROPIC_BASE_URL). Each step
// bills the event id it names; the chat step run before the setup shows the ledger's refusal to the
// caller (#36 item 1).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../support/test-app.js';
import { installPackedSdk } from './support/packed-sdk.js';
import { startSseUpstream, type SseUpstream } from './support/sse-upstream.js';

const run = promisify(execFile);
const GUIDE = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'integrations.md'), 'utf8');
const STEPS = new Map([...GUIDE.matchAll(/```js\n\/\/ ([\w-]+\.mjs)\n([\s\S]*?)```/g)].map((match) => [match[1]!, `// ${match[1]}\n${match[2]!}`]));
/** What each step bills: its event id and the model (as the catalog import names it). */
const BILLS: Record<string, { event_id: string; model: string }> = {
  'openai-chat.mjs': { event_id: 'gw1-req-123', model: 'gpt-4o' },
  'openai-responses.mjs': { event_id: 'gw1-req-124', model: 'gpt-4o' },
  'anthropic.mjs': { event_id: 'gw1-req-125', model: 'claude-sonnet-4-5' },
  'ai-sdk-fetch.mjs': { event_id: 'gw1-req-126', model: 'gpt-4o' },
  'ai-sdk-middleware.mjs': { event_id: 'gw1-req-127', model: 'gpt-4o' },
};

describe('docs/integrations.md quick start, run verbatim', () => {
  let t: TestApp;
  let upstream: SseUpstream;
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startTestApp('sdk_docs');
    await t.app.listen(0, '127.0.0.1');
    const key = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'my-gateway' }).expect(201)).body.key as string;
    upstream = await startSseUpstream();
    dir = mkdtempSync(join(tmpdir(), 'ledger-sdk-docs-'));
    installPackedSdk(dir, ['openai', '@anthropic-ai/sdk', 'ai', '@ai-sdk/openai']);
    // A fresh folder made with `npm pkg set type=module`.
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-gateway', version: '1.0.0', type: 'module' }));
    env = {
      LEDGER_URL: `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`,
      LEDGER_ADMIN_KEY: TEST_ADMIN_KEY,
      LEDGER_GATEWAY_KEY: key,
      OPENAI_API_KEY: 'sk-upstream',
      OPENAI_BASE_URL: `${upstream.url}/v1`,
      ANTHROPIC_API_KEY: 'sk-ant-upstream',
      ANTHROPIC_BASE_URL: upstream.url,
    };
  });
  afterAll(async () => {
    await upstream?.close();
    await t?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const step = (name: string) => {
    const code = STEPS.get(name);
    if (code === undefined) throw new Error(`docs/integrations.md has no \`\`\`js block starting // ${name}`);
    writeFileSync(join(dir, name), code);
    return run(process.execPath, [name], { cwd: dir, env: { ...process.env, ...env }, timeout: 60_000 });
  };

  it('has the setup and the five quick starts', () => {
    expect([...STEPS.keys()].sort()).toEqual(['setup.mjs', ...Object.keys(BILLS)].sort());
  });

  it('before the setup, the chat quick start shows the ledger refusing the hold (402 insufficient_funds) and bills nothing', async () => {
    const before = upstream.calls.length;
    const { stderr } = await step('openai-chat.mjs');
    expect(stderr).toContain('refused by the ledger: insufficient_funds');
    expect(upstream.calls.length).toBe(before);
  });

  it('the setup registers the contributor, prices the models and credits the user', async () => {
    const { stdout } = await step('setup.mjs');
    expect(stdout).toContain('contributor c_7');
  });

  it.each(Object.entries(BILLS))('%s bills its first call', async (name, { event_id, model }) => {
    const { stderr } = await step(name);
    expect(stderr).not.toMatch(/ledger refused|dead letter/);
    const billed = (await t.admin(t.http.get(`/v1/usage-events/${event_id}`))).body;
    expect(billed).toMatchObject({ event_id, status: 'priced', user_id: 'u_42', contributor_id: 'c_7', model });
    expect(Object.keys(upstream.calls.at(-1)!.headers).filter((header) => header.startsWith('x-ledger-'))).toEqual([]);
  });
});
