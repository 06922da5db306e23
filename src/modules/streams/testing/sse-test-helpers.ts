// Helpers for the stream specs: build SSE bodies and cut them into chunks reproducibly.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '../../../common/random/seeded-random.js';

const textEncoder = new TextEncoder();

/** One `data:` event holding a JSON chunk. */
export function dataEvent(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** A chat.completion.chunk with one choice (index 0 unless given). */
export function choiceChunk(delta: Record<string, unknown> | undefined, extra: Record<string, unknown> = {}): unknown {
  const { index = 0, finish_reason = null, ...rest } = extra;
  const choice: Record<string, unknown> = { index, finish_reason };
  if (delta !== undefined) choice.delta = delta;
  return { object: 'chat.completion.chunk', model: 'test-model', choices: [choice], ...rest };
}

/** An SSE body of data events, closed by [DONE] unless `done` is false. */
export function sseBody(chunks: unknown[], done = true): string {
  return chunks.map(dataEvent).join('') + (done ? 'data: [DONE]\n\n' : '');
}

export function toBytes(body: string | Uint8Array): Uint8Array {
  return typeof body === 'string' ? textEncoder.encode(body) : body;
}

export function splitEvery(body: Uint8Array, size: number): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < body.length; start += size) chunks.push(body.subarray(start, start + size));
  return chunks;
}

/** Chunks of 1..maxSize bytes, sizes drawn from a seeded PRNG. */
export function splitRandom(body: Uint8Array, seed: number, maxSize = 17): Uint8Array[] {
  const next = seededRandom(seed);
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < body.length; ) {
    const size = 1 + Math.floor(next() * maxSize);
    chunks.push(body.subarray(start, start + size));
    start += size;
  }
  return chunks;
}

/** Cuts at the given offsets (any order, duplicates and out-of-range values allowed). */
export function splitAt(body: Uint8Array, offsets: readonly number[]): Uint8Array[] {
  const cuts = [...new Set(offsets.map((o) => Math.min(Math.max(o, 0), body.length)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const cut of [...cuts, body.length]) {
    chunks.push(body.subarray(start, cut));
    start = cut;
  }
  return chunks;
}


export interface SseFixture {
  name: string;
  body: Uint8Array;
  expected: unknown;
}

/** The copied fixtures in test/fixtures/sse (the project does not read the shared folder). */
export function loadSseFixtures(): SseFixture[] {
  const dir = fileURLToPath(new URL('../../../../test/fixtures/sse/', import.meta.url));
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sse'))
    .sort()
    .map((file) => ({
      name: file.slice(0, -'.sse'.length),
      body: new Uint8Array(readFileSync(dir + file)),
      expected: JSON.parse(readFileSync(dir + file.replace(/\.sse$/, '.expected.json'), 'utf8')) as unknown,
    }));
}

export interface FormatFixture {
  name: string;
  /** The .sse body, or the -response.json body's bytes. */
  body: Uint8Array;
  kind: 'stream' | 'response';
  expected: Record<string, unknown>;
}

/** The wire-format fixtures in test/fixtures/formats (Responses, Anthropic Messages, Gemini). */
export function loadFormatFixtures(): FormatFixture[] {
  const dir = fileURLToPath(new URL('../../../../test/fixtures/formats/', import.meta.url));
  return readdirSync(dir)
    .filter((file) => file.endsWith('.sse') || file.endsWith('-response.json'))
    .sort()
    .map((file) => ({
      name: file.replace(/\.(sse|json)$/, ''),
      body: new Uint8Array(readFileSync(dir + file)),
      kind: file.endsWith('.sse') ? ('stream' as const) : ('response' as const),
      expected: JSON.parse(readFileSync(dir + file.replace(/\.(sse|json)$/, '.expected.json'), 'utf8')) as Record<string, unknown>,
    }));
}

/** The fields a format fixture's expected.json holds. */
export function fixtureView(result: Record<string, unknown>): Record<string, unknown> {
  const { format, content, finish_reason, tool_calls, usage, model, service_tier, error, truncated } = result;
  return { format, content, finish_reason, tool_calls, usage, model, service_tier, error, truncated };
}
