import { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import { POOLED_BODY_BYTES_MAX, readRawJsonBytes, withRawJsonBytes } from './raw-body.js';

/** A request whose body arrives in these chunks. */
function requestOf(chunks: Buffer[]): FastifyRequest {
  const length = chunks.reduce((sum, c) => sum + c.length, 0);
  return { headers: { 'content-type': 'application/json', 'content-length': String(length) }, raw: Readable.from(chunks) } as unknown as FastifyRequest;
}

const chunksOf = (text: string, size: number) => Array.from({ length: Math.ceil(text.length / size) }, (_, i) => Buffer.from(text.slice(i * size, (i + 1) * size)));

describe('withRawJsonBytes', () => {
  it('hands over the same bytes as readRawJsonBytes, body after body through the reused buffer', async () => {
    const bodies = ['[' + '1,'.repeat(50_000) + '2]', '{"a":"' + 'x'.repeat(70_000) + '"}', '[3]', '{"b":' + '7'.repeat(200_000) + '}'];
    for (const body of [...bodies, ...bodies.reverse()]) {
      const seen = await withRawJsonBytes(requestOf(chunksOf(body, 65_536)), 10 * POOLED_BODY_BYTES_MAX, (bytes) => bytes.toString('utf8'));
      expect(seen).toBe(body);
      expect((await readRawJsonBytes(requestOf(chunksOf(body, 65_536)), 10 * POOLED_BODY_BYTES_MAX)).toString('utf8')).toBe(body);
    }
  });

  it('gathers a body above POOLED_BODY_BYTES_MAX into a buffer of its own', async () => {
    const body = `"${'y'.repeat(POOLED_BODY_BYTES_MAX)}"`;
    const seen = await withRawJsonBytes(requestOf(chunksOf(body, 65_536)), 2 * POOLED_BODY_BYTES_MAX, (bytes) => bytes);
    expect(seen.length).toBe(body.length);
    // Not the reused buffer: a later body does not change it.
    await withRawJsonBytes(requestOf(chunksOf('[' + '0,'.repeat(40_000) + '0]', 65_536)), 2 * POOLED_BODY_BYTES_MAX, (bytes) => bytes.length);
    expect(seen.toString('utf8')).toBe(body);
  });

  it('refuses a use that is not synchronous (it would read a buffer the next request overwrites)', async () => {
    await expect(withRawJsonBytes(requestOf(chunksOf('[' + '1,'.repeat(40_000) + '1]', 65_536)), POOLED_BODY_BYTES_MAX, async (bytes) => bytes.length)).rejects.toThrow(/synchronous/);
  });

  it('keeps the limit and the empty-body answer', async () => {
    await expect(withRawJsonBytes(requestOf(chunksOf('[' + '1,'.repeat(1000) + '1]', 100)), 100, (bytes) => bytes.length)).rejects.toMatchObject({ code: 'payload_too_large' });
    await expect(withRawJsonBytes(requestOf([]), 100, (bytes) => bytes.length)).rejects.toMatchObject({ code: 'validation_failed' });
  });
});
