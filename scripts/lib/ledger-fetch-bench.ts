// `npm run bench -- --only ledger-fetch`: what the SDK's ledgerFetch tee adds to a stream of each
// wire format it bills (Chat Completions, OpenAI Responses, Anthropic Messages, Gemini) on loopback. An upstream on 127.0.0.1 replays an SSE fixture in small pieces; each
// round fetches it once plainly and once through ledgerFetch (alternating, so a slow spell of the
// machine hits both alike) and records the time to the first body byte and to the end of the
// stream. The ledger is a local sink answering 201, so the reports flow as in production, after the
// stream has ended and off the caller's path.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { LedgerClient, ledgerFetch } from '../../sdk/src/index.js';

export const LEDGER_FETCH_ROUNDS_DEFAULT = 400;
const WARMUP_ROUNDS = 40;
const PIECE_BYTES = 97;
const FIXTURES = join(import.meta.dirname, '..', '..', 'test', 'fixtures');
/** One streamed call per format: the path ledgerFetch recognises, a request body, a recorded stream. */
const FORMATS = [
  { format: 'openai-chat', path: '/v1/chat/completions', fixture: join(FIXTURES, 'sse', '01-openai-content-simple.sse'), body: { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'What is the capital of Australia?' }] } },
  { format: 'openai-responses', path: '/v1/responses', fixture: join(FIXTURES, 'sdk-upstream', 'responses-text.sse'), body: { model: 'gpt-4o', stream: true, input: 'What is new in AI today?' } },
  { format: 'anthropic-messages', path: '/v1/messages', fixture: join(FIXTURES, 'sdk-upstream', 'anthropic-text.sse'), body: { model: 'claude-sonnet-4-5', max_tokens: 256, stream: true, messages: [{ role: 'user', content: 'How are you?' }] } },
  { format: 'gemini', path: '/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse', fixture: join(FIXTURES, 'sdk-upstream', 'gemini-text.sse'), body: { contents: [{ role: 'user', parts: [{ text: 'How many r in strawberry?' }] }] } },
] as const;

export interface LedgerFetchFigures {
  rounds: number;
  plain: { ttfbP50Ms: number; totalP50Ms: number };
  tee: { ttfbP50Ms: number; totalP50Ms: number };
  /** Median of the per-round differences (teed minus plain). */
  addedTtfbP50Ms: number;
  addedTotalP50Ms: number;
  /** The same for each wire format (the figures above are openai-chat's). */
  byFormat?: Record<string, { addedTtfbP50Ms: number; addedTotalP50Ms: number; ttfbP50Ms: number }>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function upstreamServer(sse: Buffer): Server {
  return createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let offset = 0; offset < sse.length; offset += PIECE_BYTES) {
        res.write(sse.subarray(offset, offset + PIECE_BYTES));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
  });
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

async function timeOne(fetchImpl: typeof fetch, url: string, eventId: string, body: object): Promise<{ ttfbMs: number; totalMs: number }> {
  const started = performance.now();
  const response = await fetchImpl(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-ledger-event-id': eventId }, body: JSON.stringify(body) });
  const reader = response.body!.getReader();
  let first: number | undefined;
  for (;;) {
    const { done } = await reader.read();
    first ??= performance.now();
    if (done) break;
  }
  return { ttfbMs: first - started, totalMs: performance.now() - started };
}

export async function measureLedgerFetch(options: { rounds: number; say: (line: string) => void }): Promise<LedgerFetchFigures> {
  let figures: LedgerFetchFigures | undefined;
  const byFormat: NonNullable<LedgerFetchFigures['byFormat']> = {};
  for (const format of FORMATS) {
    const measured = await measureOneFormat(format, options);
    byFormat[format.format] = { addedTtfbP50Ms: measured.addedTtfbP50Ms, addedTotalP50Ms: measured.addedTotalP50Ms, ttfbP50Ms: measured.tee.ttfbP50Ms };
    figures ??= measured;
  }
  return { ...figures!, byFormat };
}

async function measureOneFormat(call: (typeof FORMATS)[number], options: { rounds: number; say: (line: string) => void }): Promise<LedgerFetchFigures> {
  const upstream = upstreamServer(readFileSync(call.fixture));
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(201, { 'content-type': 'application/json' }).end('{"status":"priced"}'));
  });
  const url = `${await listen(upstream)}${call.path}`;
  const ledger = new LedgerClient({ baseUrl: await listen(sink), apiKey: 'bench' });
  const teed = ledgerFetch(fetch, { ledger, attribution: (request) => ({ event_id: request.headers.get('x-ledger-event-id')!, user_id: 'u', contributor_id: 'c' }) }) as typeof fetch;
  const plain: Array<{ ttfbMs: number; totalMs: number }> = [];
  const tee: Array<{ ttfbMs: number; totalMs: number }> = [];
  try {
    for (let round = 0; round < WARMUP_ROUNDS + options.rounds; round += 1) {
      // Alternating order; the report of a teed call is sent (outside the timed part) before the
      // next call, so its work is not charged to whichever call happens to run next.
      const teeFirst = round % 2 === 1;
      const b0 = teeFirst ? await timeOne(teed, url, `t-${round}`, call.body) : undefined;
      await ledger.flush();
      const a = await timeOne(fetch, url, `p-${round}`, call.body);
      const b = b0 ?? (await timeOne(teed, url, `t-${round}`, call.body));
      await ledger.flush();
      if (round >= WARMUP_ROUNDS) {
        plain.push(a);
        tee.push(b);
      }
    }
    await ledger.flush();
  } finally {
    ledger.close();
    upstream.closeAllConnections();
    sink.closeAllConnections();
    await Promise.all([new Promise((resolve) => upstream.close(resolve)), new Promise((resolve) => sink.close(resolve))]);
  }
  const summary = (samples: typeof plain) => ({ ttfbP50Ms: median(samples.map((s) => s.ttfbMs)), totalP50Ms: median(samples.map((s) => s.totalMs)) });
  const figures: LedgerFetchFigures = { rounds: options.rounds, plain: summary(plain), tee: summary(tee), addedTtfbP50Ms: 0, addedTotalP50Ms: 0 };
  // Paired: each round's teed call minus the plain call just before it, so the machine's load
  // (shared, 2 cores) cancels out instead of moving the two medians apart.
  figures.addedTtfbP50Ms = median(tee.map((s, i) => s.ttfbMs - plain[i]!.ttfbMs));
  figures.addedTotalP50Ms = median(tee.map((s, i) => s.totalMs - plain[i]!.totalMs));
  const ms = (value: number) => `${value.toFixed(3)} ms`;
  options.say(`ledger-fetch ${call.format} (${options.rounds} rounds, loopback): time to first byte p50 ${ms(figures.plain.ttfbP50Ms)} plain, ${ms(figures.tee.ttfbP50Ms)} through ledgerFetch (paired p50 added ${ms(figures.addedTtfbP50Ms)}); whole stream p50 ${ms(figures.plain.totalP50Ms)} plain, ${ms(figures.tee.totalP50Ms)} teed (paired p50 added ${ms(figures.addedTotalP50Ms)}); target < 1 ms added`);
  return figures;
}
