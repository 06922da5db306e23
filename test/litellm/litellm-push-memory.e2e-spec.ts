// The largest bodies the LiteLLM push allows, in each of its three formats, sent to the API
// started as production starts it (the heap flags of `npm run start:prod`): each is answered with
// one result per payload and the process stays up (issue 34 item 9: a 48 MiB NDJSON body and a
// JSON array of 40,000 payloads killed it with "heap out of memory" at --max-old-space-size=160).
import { jest } from '@jest/globals';
import { productionNodeFlags } from '../../scripts/lib/service-process.js';
import { startAppProcess, type AppProcess } from '../security/support/app-process.js';
import { DEPLOYMENT_MAPPED, litellmPayload } from '../support/litellm-payloads.js';
import { createTestDatabase } from '../support/test-db.js';

const ADMIN_KEY = 'memory-admin-key-0123456789abcdef';
const BODY_LIMIT_BYTES = 64 * 1024 * 1024;
const MAX_PAYLOADS = 20_000;
const PACKAGE_JSON = new URL('../../package.json', import.meta.url).pathname;

jest.setTimeout(600_000);

describe('LiteLLM push: the largest allowed bodies under the production heap cap', () => {
  let app: AppProcess;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${app.baseUrl}${path}`, { ...init, headers: { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json', ...(init.headers ?? {}) } });
  const push = async (body: string) => {
    const res = await call('/v1/integrations/litellm', { method: 'POST', body });
    return { status: res.status, body: (await res.json()) as { results: Array<{ status: string }> } };
  };

  beforeAll(async () => {
    db = await createTestDatabase('litellm_memory');
    const flags = productionNodeFlags('api', PACKAGE_JSON);
    expect(flags).toContain('--max-old-space-size=160');
    app = await startAppProcess({ DATABASE_URL: db.url, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'warn', QUEUE_PREFIX: `test-mem-${process.pid}` }, flags, 240_000);
    expect((await call('/v1/admin/prices', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', effective_from: '2026-01-01T00:00:00Z' }) })).status).toBe(201);
    expect((await call('/v1/admin/contributors/c_std', { method: 'PUT', body: JSON.stringify({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }) })).status).toBe(201);
    expect((await call(`/v1/admin/integrations/litellm/deployments/${DEPLOYMENT_MAPPED}`, { method: 'PUT', body: JSON.stringify({ contributor_id: 'c_std' }) })).status).toBe(201);
  });
  afterAll(async () => {
    await app?.stop();
    await db?.drop();
  });

  const small = (id: string) => JSON.stringify({ ...litellmPayload(id), messages: [{ role: 'user', content: 'hi' }] });
  /**
   * `count` payloads whose messages fill the body to just under the limit, in strings of 500 bytes:
   * short enough to be decoded by a reader that cuts only long strings (the NDJSON body that
   * killed the API was made of such lines).
   */
  const filled = (prefix: string, count: number, separatorBytes: number) => {
    const bare = small(`${prefix}-0`).length + separatorBytes;
    const messageBytes = Math.floor((BODY_LIMIT_BYTES - 64) / count) - bare - 64;
    const part = { role: 'user', content: 'lorem ipsum '.repeat(40).slice(0, 470) };
    const parts = Math.floor(messageBytes / (JSON.stringify(part).length + 1));
    const messages = Array.from({ length: parts }, () => part);
    return Array.from({ length: count }, (_, i) => JSON.stringify({ ...litellmPayload(`${prefix}-${i}`), messages }));
  };
  const expectAllTaken = (results: Array<{ status: string }>, count: number) => {
    expect(results).toHaveLength(count);
    expect(results.filter((r) => r.status !== 'priced' && r.status !== 'unpriced')).toEqual([]);
  };

  it(`takes a JSON array of ${MAX_PAYLOADS} payloads`, async () => {
    const body = `[${Array.from({ length: MAX_PAYLOADS }, (_, i) => small(`arr-${i}`)).join(',')}]`;
    const res = await push(body);
    expect(res.status).toBe(200);
    expectAllTaken(res.body.results, MAX_PAYLOADS);
    expect(app.alive()).toBe(true);
  });

  it('takes NDJSON and a JSON array that fill the 64 MiB limit', async () => {
    const lines = filled('nd', 4000, 1);
    const ndjson = lines.join('\n');
    expect(Buffer.byteLength(ndjson)).toBeGreaterThan(BODY_LIMIT_BYTES - 4 * 1024 * 1024);
    expect(Buffer.byteLength(ndjson)).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
    const nd = await push(ndjson);
    expect(nd.status).toBe(200);
    expectAllTaken(nd.body.results, 4000);
    const array = `[${filled('big', 4000, 1).join(',')}]`;
    expect(Buffer.byteLength(array)).toBeLessThanOrEqual(BODY_LIMIT_BYTES);
    const arr = await push(array);
    expect(arr.status).toBe(200);
    expectAllTaken(arr.body.results, 4000);
    expect(app.alive()).toBe(true);
  });

  it('takes one object of almost 64 MiB, and is still up and answering afterwards', async () => {
    const [single] = filled('single', 1, 0);
    expect(Buffer.byteLength(single!)).toBeGreaterThan(BODY_LIMIT_BYTES - 4 * 1024 * 1024);
    const res = await push(single!);
    expect(res.status).toBe(200);
    expectAllTaken(res.body.results, 1);
    expect(app.alive()).toBe(true);
    expect((await fetch(`${app.baseUrl}/health`)).status).toBe(200);
    expect(app.output()).not.toMatch(/heap out of memory/i);
  });
});
