// An OpenAI-compatible upstream on 127.0.0.1 that replays the SSE fixtures of test/fixtures/sse:
// the request's `model` names the fixture ("fixture:03-openai-tool-single-fragmented"). It writes
// the fixture in small pieces (across event and UTF-8 boundaries), records what it sent and the
// headers it received, and answers a non-streamed request with a completion carrying `usage`.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

export const SSE_FIXTURES_DIR = join(import.meta.dirname, '..', '..', 'fixtures', 'sse');
/** Bytes per write: small enough that events and multi-byte characters are split. */
const PIECE_BYTES = 97;

export function sseFixture(name: string): Buffer {
  return readFileSync(join(SSE_FIXTURES_DIR, `${name}.sse`));
}

export const NON_STREAM_USAGE = { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70, prompt_tokens_details: { cached_tokens: 10 }, completion_tokens_details: { reasoning_tokens: 5 } };

export interface UpstreamCall {
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

export async function startSseUpstream(options: { pieceDelayMs?: number } = {}): Promise<SseUpstream> {
  const calls: UpstreamCall[] = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(parts).toString('utf8') || '{}') as Record<string, unknown>;
      const call: UpstreamCall = { headers: req.headers, body, sent: Buffer.alloc(0), closedEarly: false };
      calls.push(call);
      const model = String(body.model ?? '');
      if (body.stream !== true) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion', created: 1754312466, model, choices: [{ index: 0, message: { role: 'assistant', content: 'Canberra.' }, finish_reason: 'stop' }], usage: NON_STREAM_USAGE }));
        return;
      }
      const [, fixture, mode] = /^fixture:([^:]+)(?::(slow))?$/.exec(model) ?? [];
      const bytes = sseFixture(fixture ?? '01-openai-content-simple');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.on('close', () => {
        if (!res.writableFinished) call.closedEarly = true;
      });
      for (let offset = 0; offset < bytes.length && !call.closedEarly; offset += PIECE_BYTES) {
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
