import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { canonicalEventPayload, canonicalJson, hashedPayload, normalizeEvent } from './usage-event.js';
import { usageEventSchema, type UsageEventInput } from './usage.schemas.js';

// Stored request_hash values must keep matching replays: the fast canonical text of the hashed
// payload must be byte-identical to the generic canonicalJson of the same object.

const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 40 });
const anyText = fc.oneof(printable, fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: 'grapheme', maxLength: 10 }));
const tokens = fc.integer({ min: 0, max: 2 ** 31 - 1 });
const instant = fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z'), noInvalidDate: true });
const metadata = fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }) as fc.Arbitrary<Record<string, unknown>>;

const inputArb: fc.Arbitrary<UsageEventInput> = fc
  .record(
    {
      event_id: anyText,
      user_id: anyText,
      contributor_id: anyText,
      model: anyText,
      occurred_at: instant.map((d) => d.toISOString()),
      usage: fc.record(
        {
          prompt_tokens: tokens,
          completion_tokens: tokens,
          cached_tokens: tokens,
          reasoning_tokens: tokens,
          cache_write_5m_tokens: tokens,
          cache_write_1h_tokens: tokens,
          prompt_audio_tokens: tokens,
          cached_audio_tokens: tokens,
          prompt_image_tokens: tokens,
          completion_audio_tokens: tokens,
          completion_image_tokens: tokens,
          web_search_calls: tokens,
        },
        { requiredKeys: ['prompt_tokens', 'completion_tokens', 'cached_tokens', 'reasoning_tokens'] },
      ),
      price_variant: fc.stringMatching(/^[a-z0-9._-]{1,64}$/),
      hold_id: anyText,
      metadata,
    },
    { requiredKeys: ['event_id', 'user_id', 'contributor_id', 'model', 'usage'] },
  )
  .map((x) => x as UsageEventInput);

const occurredAtArb = fc.option(instant.map((d) => d.toISOString()));
const streamShaArb = fc.option(fc.stringMatching(/^[0-9a-f]{64}$/));

describe('canonicalEventPayload', () => {
  it('is byte-identical to canonicalJson of the hashed payload, for any input', () => {
    fc.assert(
      fc.property(inputArb, occurredAtArb, streamShaArb, (input, occurredAt, sha) => {
        expect(canonicalEventPayload(input, occurredAt, sha)).toBe(canonicalJson(hashedPayload(input, occurredAt, sha)));
      }),
      { numRuns: 2000 },
    );
  });

  it('is byte-identical for payloads as the schema outputs them (defaults filled, any key order)', () => {
    const raw = fc.record(
      {
        event_id: printable,
        user_id: fc.stringMatching(/^[A-Za-z0-9._:@-]{1,20}$/),
        contributor_id: fc.stringMatching(/^[A-Za-z0-9._:@-]{1,20}$/),
        model: printable,
        occurred_at: instant.map((d) => d.toISOString().replace('Z', '+00:00')),
        usage: fc.record({ prompt_tokens: tokens, completion_tokens: tokens, cached_tokens: fc.constant(0), reasoning_tokens: fc.constant(0) }, { requiredKeys: ['prompt_tokens', 'completion_tokens'] }),
        hold_id: printable,
        metadata,
      },
      { requiredKeys: ['event_id', 'user_id', 'contributor_id', 'model', 'usage'] },
    );
    let parsedCount = 0;
    fc.assert(
      fc.property(raw, streamShaArb, (payload, sha) => {
        // Key order as a gateway might send it: reversed.
        const reordered = Object.fromEntries(Object.entries(payload).reverse());
        const parsed = usageEventSchema.safeParse(reordered);
        if (!parsed.success) return;
        parsedCount += 1;
        const occurredAt = parsed.data.occurred_at === undefined ? null : new Date(parsed.data.occurred_at).toISOString();
        expect(canonicalEventPayload(parsed.data, occurredAt, sha)).toBe(canonicalJson(hashedPayload(parsed.data, occurredAt, sha)));
      }),
      { numRuns: 1000 },
    );
    expect(parsedCount).toBeGreaterThan(500);
  });

  it('normalizeEvent hashes the canonical payload exactly as before (sha256 hex of canonicalJson)', () => {
    fc.assert(
      fc.property(inputArb, fc.option(fc.record({ body_sha256: fc.stringMatching(/^[0-9a-f]{64}$/) })), (input, streamPart) => {
        const stream = streamPart === null ? null : { finish_reason: null, error: null, truncated: false, usage_source: 'provider' as const, content_length: 0, tool_calls: [], ...streamPart };
        const event = normalizeEvent(input, { now: new Date('2026-01-01T00:00:00Z'), source: 'batch', stream });
        const occurredAt = input.occurred_at === undefined ? null : new Date(input.occurred_at).toISOString();
        const expected = createHash('sha256').update(canonicalJson(hashedPayload(input, occurredAt, stream?.body_sha256 ?? null))).digest('hex');
        expect(event.requestHash).toBe(expected);
        expect(event.occurredAt.toISOString()).toBe(occurredAt ?? '2026-01-01T00:00:00.000Z');
      }),
      { numRuns: 500 },
    );
  });

  it('keeps hashes computed before the fast path (stored request_hash values)', () => {
    const usage = { prompt_tokens: 1, completion_tokens: 2, cached_tokens: 0, reasoning_tokens: 0 };
    const plain = normalizeEvent({ event_id: 'e', user_id: 'u', contributor_id: 'c', model: 'm', usage }, { now: new Date(), source: 'api' });
    expect(plain.requestHash).toBe('b88af489f415b0d68decc400b5aaac269aba78a91c47ff65aab2e1eff6c91b1a');
    const full = normalizeEvent(
      {
        event_id: 'gw-"1',
        user_id: 'u_42',
        contributor_id: 'c_7',
        model: 'openai/gpt-4o',
        occurred_at: '2026-11-29T11:00:00+01:00',
        usage: { prompt_tokens: 1200, completion_tokens: 350, cached_tokens: 200, reasoning_tokens: 0 },
        hold_id: 'h_1',
        metadata: { z: 1, a: ['x', { d: null, b: '\u00e9' }] },
      },
      { now: new Date(), source: 'api', stream: { body_sha256: 'ab'.repeat(32) } as never },
    );
    expect(full.requestHash).toBe('d70bc2a6aa7ec9d04c5528b6d716c7729d4647a92605ab8464823e4c9b3e7b04');
  });
});
