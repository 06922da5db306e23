// LedgerClient's retries and errors against a real HTTP server on 127.0.0.1 (scripted answers).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerClient } from './client.js';
import { LedgerNetworkError, LedgerUnavailableError, LedgerUnprocessableError } from './errors.js';

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

async function scriptedServer(answers: Answer[]): Promise<{ url: string; hits: Array<{ path: string; body: string }>; close: () => Promise<void> }> {
  const hits: Array<{ path: string; body: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (part) => (body += part));
    req.on('end', () => {
      hits.push({ path: req.url ?? '', body });
      const answer = answers[Math.min(hits.length - 1, answers.length - 1)]!;
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const EVENT = { event_id: 'e1', user_id: 'u1', contributor_id: 'c1', model: 'm', usage: { prompt_tokens: 1, completion_tokens: 1 } };
const FAST = { baseDelayMs: 1, delayMaxMs: 5 };

describe('LedgerClient', () => {
  it('retries an idempotent write on 503 and 429 (honouring Retry-After) and sends the same body each time', async () => {
    const server = await scriptedServer([
      { status: 503, body: { error: { code: 'unavailable', message: 'down' } } },
      { status: 429, body: { error: { code: 'rate_limited', message: 'slow' } }, headers: { 'retry-after': '1' } },
      { status: 201, body: { event_id: 'e1', status: 'priced' } },
    ]);
    const ledger = new LedgerClient({ baseUrl: server.url, apiKey: 'k', retry: FAST });
    const started = Date.now();
    expect(await ledger.recordUsage(EVENT)).toEqual({ event_id: 'e1', status: 'priced' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(server.hits.map((hit) => hit.path)).toEqual(['/v1/usage-events', '/v1/usage-events', '/v1/usage-events']);
    expect(new Set(server.hits.map((hit) => hit.body)).size).toBe(1);
    await server.close();
  });

  it('gives up after the last attempt with the typed error', async () => {
    const server = await scriptedServer([{ status: 503, body: { error: { code: 'unavailable', message: 'down' } } }]);
    const ledger = new LedgerClient({ baseUrl: server.url, apiKey: 'k', retry: { ...FAST, attemptsMax: 3 } });
    await expect(ledger.recordUsage(EVENT)).rejects.toMatchObject({ constructor: LedgerUnavailableError, code: 'unavailable', status: 503 });
    expect(server.hits).toHaveLength(3);
    await server.close();
  });

  it('does not retry a 422 and answers it as a typed error with its details', async () => {
    const server = await scriptedServer([{ status: 422, body: { error: { code: 'unknown_contributor', message: 'no such contributor', details: { contributor_id: 'c1' } } } }]);
    const ledger = new LedgerClient({ baseUrl: server.url, apiKey: 'k', retry: FAST });
    const error = await ledger.recordUsage(EVENT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerUnprocessableError);
    expect(error).toMatchObject({ code: 'unknown_contributor', status: 422, details: { contributor_id: 'c1' } });
    expect(server.hits).toHaveLength(1);
    await server.close();
  });

  it('does not retry a POST that carries no idempotency id', async () => {
    const server = await scriptedServer([{ status: 503, body: { error: { code: 'unavailable', message: 'down' } } }]);
    const ledger = new LedgerClient({ baseUrl: server.url, apiKey: 'k', retry: FAST });
    const { response } = await ledger.api.POST('/v1/admin/settlements', { body: {} as never });
    expect(response.status).toBe(503);
    expect(server.hits).toHaveLength(1);
    await server.close();
  });

  it('turns an unreachable ledger into a LedgerNetworkError after retrying', async () => {
    const server = await scriptedServer([]);
    await server.close();
    const ledger = new LedgerClient({ baseUrl: server.url, apiKey: 'k', retry: FAST });
    await expect(ledger.recordUsage(EVENT)).rejects.toBeInstanceOf(LedgerNetworkError);
  });

  it('still bills chat through a ledger before the format routes: the stream resent without `format`, a response as a usage event', async () => {
    const server = await scriptedServer([
      { status: 400, body: { error: { code: 'validation_failed', message: 'request validation failed', details: { fields: [{ field: '', message: "Unrecognized key: \"format\"" }] } } } },
      { status: 201, body: { event_id: 's1', status: 'priced' } },
      { status: 201, body: { event_id: 's2', status: 'priced' } },
      { status: 404, body: { error: { code: 'not_found', message: 'route not found' } } },
      { status: 201, body: { event_id: 'r1', status: 'priced' } },
    ]);
    const ledger = new LedgerClient({ baseUrl: server.url, apiKey: 'k', retry: FAST });
    const query = { event_id: 's1', user_id: 'u1', contributor_id: 'c1', model: 'gpt-4o', format: 'openai-chat' as const };
    await ledger.recordStream(query, new TextEncoder().encode('data: {}\n\n'));
    // Learnt once: the next chat stream goes without `format` at once.
    await ledger.recordStream({ ...query, event_id: 's2' }, new TextEncoder().encode('data: {}\n\n'));
    await ledger.recordResponse({ ...query, event_id: 'r1' }, new TextEncoder().encode(JSON.stringify({ object: 'chat.completion', usage: { prompt_tokens: 7, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } } })));
    expect(server.hits.map((hit) => hit.path.replace(/occurred_at=[^&]*&?/, ''))).toEqual([
      '/v1/usage-events/stream?event_id=s1&user_id=u1&contributor_id=c1&model=gpt-4o&format=openai-chat',
      '/v1/usage-events/stream?event_id=s1&user_id=u1&contributor_id=c1&model=gpt-4o',
      '/v1/usage-events/stream?event_id=s2&user_id=u1&contributor_id=c1&model=gpt-4o',
      '/v1/usage-events/response?event_id=r1&user_id=u1&contributor_id=c1&model=gpt-4o&format=openai-chat',
      '/v1/usage-events',
    ]);
    expect(JSON.parse(server.hits[4]!.body)).toMatchObject({ event_id: 'r1', model: 'gpt-4o', usage: { prompt_tokens: 7, completion_tokens: 3, cached_tokens: 2 } });
    await server.close();
  });
});
