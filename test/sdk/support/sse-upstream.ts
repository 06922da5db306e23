// An upstream on 127.0.0.1 that speaks the four wire formats ledgerFetch bills and replays
// recorded answers: Chat Completions from test/fixtures/sse (the request's `model` names the
// fixture, "fixture:03-openai-tool-single-fragmented"), and OpenAI Responses, Anthropic Messages and
// Gemini from test/fixtures/sdk-upstream (real recordings, see SOURCES.md; the `x-upstream-fixture`
// header names one, else the format's `*-text`). It writes a stream in small pieces (across event
// and UTF-8 boundaries), records what it sent and the headers it received, and answers a
// non-streamed request with the recorded JSON. `x-upstream-mode` (or ":slow" after a chat fixture):
//   slow: half the stream, then a trickle (the caller can abort mid-stream);
//   cut: half the stream, then the connection is destroyed;
//   overloaded: half the stream, then Anthropic's `error` event (overloaded_error);
//   json: a streaming request answered with the whole JSON answer;
//   renamed: the JSON answer names another model than the request.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const SSE_FIXTURES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'sse');
export const FORMAT_FIXTURES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'sdk-upstream');
/** Bytes per write: small enough that events and multi-byte characters are split. */
const PIECE_BYTES = 97;
/** The model a `renamed` answer names: an upstream claiming a dearer model than it was asked for. */
export const RENAMED_MODEL = 'openai/o1-pro';

export function sseFixture(name: string): Buffer {
  return readFileSync(join(SSE_FIXTURES_DIR, `${name}.sse`));
}

export function formatFixture(file: string): Buffer {
  return readFileSync(join(FORMAT_FIXTURES_DIR, file));
}

export const NON_STREAM_USAGE = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70, prompt_tokens_details: { cached_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 5 } };
export const EMBEDDING_USAGE = { prompt_tokens: 8, total_tokens: 8 };

export interface UpstreamCall {
  path: string;
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  sent: Buffer;
  /** The caller went away before the fixture was all sent. */
  closedEarly: boolean;
}

export interface SseUpstream {
  url: string;
  calls: UpstreamCall[];
  close: () => Promise<void>;
}

type Format = 'chat' | 'responses' | 'anthropic' | 'gemini' | 'embeddings';

function formatOf(path: string): Format | undefined {
  if (/:(?:stream)?[gG]enerateContent$/.test(path)) return 'gemini';
  if (/\/(?:chat\/)?completions$/.test(path)) return 'chat';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/embeddings')) return 'embeddings';
  return undefined;
}

const DEFAULT_FIXTURE: Record<Exclude<Format, 'chat' | 'embeddings'>, string> = { responses: 'responses-text', anthropic: 'anthropic-text', gemini: 'gemini-text' };

/** Gemini without ?alt=sse streams one JSON array of the responses an SSE stream sends one by one. */
function geminiArrayOf(sse: Buffer): Buffer {
  const objects = sse.toString('utf8').split(/\r?\n/).filter((line) => line.startsWith('data: ')).map((line) => line.slice(6));
  return Buffer.from(`[${objects.join(',\n')}]`);
}

const ANTHROPIC_OVERLOADED = Buffer.from('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startSseUpstream(options: { pieceDelayMs?: number } = {}): Promise<SseUpstream> {
  const calls: UpstreamCall[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://upstream');
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, unknown>;
      const call: UpstreamCall = { path: url.pathname, headers: req.headers, body, sent: Buffer.alloc(0), closedEarly: false };
      calls.push(call);
      const format = formatOf(url.pathname);
      const model = String(body.model ?? '');
      const [, chatFixture, chatMode] = /^fixture:([^:]+)(?::(slow))?$/.exec(model) ?? [];
      let mode = String(req.headers['x-upstream-mode'] ?? chatMode ?? '');
      const fixture = String(req.headers['x-upstream-fixture'] ?? '');
      if (format === undefined) return json(res, 404, { error: { message: 'no such route' } });
      if (mode === 'error') return json(res, 500, { error: { message: 'upstream failed', type: 'server_error' } });
      if (format === 'embeddings') {
        return json(res, 200, { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.0023, -0.0093, 0.0157] }], model, usage: EMBEDDING_USAGE });
      }
      const streamed = body.stream === true || url.pathname.endsWith(':streamGenerateContent');
      if (!streamed || mode === 'json') {
        if (format === 'chat') {
          return json(res, 200, { id: 'chatcmpl-1', object: 'chat.completion', created: 1754312466, model: mode === 'renamed' ? RENAMED_MODEL : model, choices: [{ index: 0, message: { role: 'assistant', content: 'Canberra.' }, finish_reason: 'stop' }], usage: NON_STREAM_USAGE });
        }
        const answer = JSON.parse(formatFixture(`${fixture || DEFAULT_FIXTURE[format]}.json`).toString('utf8')) as Record<string, unknown>;
        if (mode === 'renamed') answer[format === 'gemini' ? 'modelVersion' : 'model'] = RENAMED_MODEL;
        return json(res, 200, answer);
      }
      let bytes = format === 'chat' ? sseFixture(chatFixture ?? '01-openai-content-simple') : formatFixture(`${fixture || DEFAULT_FIXTURE[format]}.sse`);
      const geminiArray = format === 'gemini' && url.searchParams.get('alt') !== 'sse';
      if (geminiArray) bytes = geminiArrayOf(bytes);
      if (mode === 'overloaded') {
        // Whole events only, then the error event: as Anthropic ends a stream it cannot finish.
        const events = bytes.toString('utf8').split('\n\n');
        bytes = Buffer.concat([Buffer.from(events.slice(0, Math.ceil(events.length / 2)).join('\n\n') + '\n\n'), ANTHROPIC_OVERLOADED]);
        mode = '';
      }
      res.writeHead(200, { 'content-type': geminiArray ? 'application/json' : 'text/event-stream', 'cache-control': 'no-cache' });
      res.on('close', () => {
        if (!res.writableFinished) call.closedEarly = true;
      });
      for (let offset = 0; offset < bytes.length && !call.closedEarly; offset += PIECE_BYTES) {
        if (mode === 'cut' && offset > bytes.length / 2) {
          res.destroy();
          return;
        }
        const piece = bytes.subarray(offset, offset + PIECE_BYTES);
        res.write(piece);
        call.sent = Buffer.concat([call.sent, piece]);
        // "slow": half the fixture, then only a trickle, so the caller can abort mid-stream.
        const delayMs = mode === 'slow' && offset > bytes.length / 2 ? 200 : (options.pieceDelayMs ?? 0);
        await new Promise((resolve) => (delayMs > 0 ? setTimeout(resolve, delayMs) : setImmediate(resolve)));
      }
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
