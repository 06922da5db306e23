// Issue 34 (items 1, 3, 9, 11) and issue 33 item 5 at the level of the pure mapping and body
// reader: each case below lost a call or failed a body before.
import { createHash } from 'node:crypto';
import { litellmBodyPayloads, LitellmBodyRefused, parseLitellmBody, UNREADABLE_LINE } from './litellm-body.js';
import { litellmEventId, unstorableTextReason } from './litellm-ids.js';
import { litellmPayloadSelection, planLitellmPayload } from './litellm-payload.js';

const USER_FIELDS = ['metadata.user_api_key_user_id', 'metadata.user_api_key_team_id', 'metadata.user_api_key_hash'];
const selection = litellmPayloadSelection(USER_FIELDS);
const plan = (value: unknown) => planLitellmPayload(value, { userFields: USER_FIELDS });
const payload = (overrides: Record<string, unknown> = {}) => ({
  id: 'chatcmpl-1',
  call_type: 'acompletion',
  status: 'success',
  endTime: 1764496800.5,
  model: 'gpt-4o',
  model_id: 'dep-1',
  metadata: { user_api_key_user_id: 'u-1' },
  response: { usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 } },
  ...overrides,
});
const eventOf = (value: unknown) => {
  const p = plan(value);
  if (p.kind !== 'event') throw new Error(`not an event: ${JSON.stringify(p)}`);
  return p.event;
};

describe('ids and texts that reach Postgres (issue 34 items 1 and 3)', () => {
  it('rejects an entry whose id, model, deployment or user holds a control character or a lone surrogate, naming the field', () => {
    for (const bad of ['a\u0000b', 'a\u0001', 'a\u007f', 'a\u0085', 'a\ud800']) {
      expect(plan(payload({ id: bad }))).toMatchObject({ kind: 'rejected', id: bad, eventId: null, reason: 'text', message: expect.stringMatching(/^id: /) });
      expect(plan(payload({ model: bad, model_map_information: undefined }))).toMatchObject({ kind: 'rejected', reason: 'text', message: expect.stringMatching(/^model: /) });
      expect(plan(payload({ model_id: bad }))).toMatchObject({ kind: 'rejected', reason: 'text', message: expect.stringMatching(/^model_id: /) });
      expect(plan(payload({ metadata: { user_api_key_user_id: bad } }))).toMatchObject({ kind: 'rejected', reason: 'text', message: expect.stringMatching(/^user: /) });
    }
    expect(unstorableTextReason('josé \u{1f600} Jane Doe')).toBeNull();
  });

  it('keeps free-text user ids as sent (e-mail addresses, spaces, accents, slashes)', () => {
    for (const user of ['alice+x@example.com', 'Jane Doe', 'josé@example.com', 'acme/team']) {
      expect(eventOf(payload({ metadata: { user_api_key_user_id: user } })).user_id).toBe(user);
    }
  });

  it('hashes an id too long for an event id: "litellm:sha256:" + hex(sha256(id)), and only then', () => {
    const responsesId = `resp_${'0123456789abcdef'.repeat(14)}`; // 229 characters, as OpenAI Responses ids run
    expect(litellmEventId(responsesId)).toBe(`litellm:${responsesId}`);
    const long = 'x'.repeat(249);
    const hashed = `litellm:sha256:${createHash('sha256').update(long, 'utf8').digest('hex')}`;
    expect(litellmEventId('x'.repeat(248))).toBe(`litellm:${'x'.repeat(248)}`);
    expect(litellmEventId(long)).toBe(hashed);
    expect(plan(payload({ id: long }))).toMatchObject({ kind: 'event', id: long, eventId: hashed, event: { event_id: hashed } });
    // Skipped payloads use the same event id, so their replays and twins meet.
    expect(plan(payload({ id: long, cache_hit: true }))).toMatchObject({ kind: 'skipped', eventId: hashed });
  });

  it('rejects a call dated past the future skew as `future`', () => {
    const options = { userFields: USER_FIELDS, nowMs: Date.parse('2026-12-07T10:00:00Z'), futureSkewMs: 300_000 };
    expect(planLitellmPayload(payload({ endTime: '2099-01-01 00:00:00' }), options)).toMatchObject({ kind: 'rejected', reason: 'future' });
    expect(planLitellmPayload(payload({ endTime: '2026-12-07 10:04:59' }), options)).toMatchObject({ kind: 'event' });
  });
});

describe('call types of every route LiteLLM logs (issue 33 item 5)', () => {
  it('bills Responses API calls with cached input, reasoning and web searches from their own usage shape', () => {
    const response = {
      object: 'response',
      output: [{ type: 'web_search_call', status: 'completed' }, { type: 'web_search_call', status: 'completed' }, { type: 'message', content: [{ type: 'output_text', text: 'hi' }] }],
      usage: { input_tokens: 31073, input_tokens_details: { cached_tokens: 1000 }, output_tokens: 4416, output_tokens_details: { reasoning_tokens: 3000 }, total_tokens: 35489 },
    };
    for (const callType of ['responses', 'aresponses', '_aresponses_websocket']) {
      expect(eventOf(payload({ call_type: callType, response })).usage).toEqual({ prompt_tokens: 31073, completion_tokens: 4416, cached_tokens: 1000, reasoning_tokens: 3000, web_search_calls: 2 });
    }
  });

  it('bills Anthropic Messages calls (anthropic_messages) with cache reads, 5m/1h writes and server web searches', () => {
    const response = {
      type: 'message',
      usage: { input_tokens: 100, cache_read_input_tokens: 2000, cache_creation_input_tokens: 3000, cache_creation: { ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 1000 }, output_tokens: 400, server_tool_use: { web_search_requests: 2 }, service_tier: 'standard' },
    };
    for (const callType of ['anthropic_messages', 'aanthropic_messages']) {
      expect(plan(payload({ call_type: callType, response }))).toMatchObject({
        kind: 'event',
        event: { usage: { prompt_tokens: 5100, completion_tokens: 400, cached_tokens: 2000, cache_write_5m_tokens: 2000, cache_write_1h_tokens: 1000, web_search_calls: 2, reasoning_tokens: 0 } },
      });
    }
  });

  it('bills Gemini generate_content (and its stream) from usageMetadata: tool-use prompt, thoughts, cache, grounding', () => {
    const response = {
      candidates: [{ content: { parts: [{ text: 'hi' }] }, groundingMetadata: { webSearchQueries: ['a', 'b', 'c'] } }],
      usageMetadata: { promptTokenCount: 1200, toolUsePromptTokenCount: 50, cachedContentTokenCount: 800, candidatesTokenCount: 300, thoughtsTokenCount: 700, totalTokenCount: 2250 },
    };
    for (const callType of ['generate_content', 'agenerate_content', 'generate_content_stream', 'agenerate_content_stream']) {
      expect(eventOf(payload({ call_type: callType, response })).usage).toMatchObject({ prompt_tokens: 1250, completion_tokens: 1000, cached_tokens: 800, reasoning_tokens: 700, web_search_calls: 3 });
    }
  });

  it('bills a Gemini pass-through (pass_through_endpoint) that carries usage; skips one that carries none', () => {
    const usage = { prompt_tokens: 1200, completion_tokens: 1000, total_tokens: 2200, prompt_tokens_details: { cached_tokens: 800 }, completion_tokens_details: { reasoning_tokens: 700 } };
    expect(eventOf(payload({ call_type: 'pass_through_endpoint', response: { usage } })).usage).toMatchObject({ prompt_tokens: 1200, completion_tokens: 1000, cached_tokens: 800, reasoning_tokens: 700 });
    expect(plan(payload({ call_type: 'pass_through_endpoint', response: {}, prompt_tokens: undefined }))).toMatchObject({ kind: 'skipped', reason: 'unsupported_call_type' });
    expect(plan(payload({ call_type: 'aimage_generation' }))).toMatchObject({ kind: 'skipped', reason: 'unsupported_call_type' });
  });
});

describe('the push body (issue 34 items 9 and 11)', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  const good = (id: string) => JSON.stringify({ id, messages: [{ content: `"quoted" ${'x'.repeat(2000)}` }] });

  it('never lets a torn NDJSON line swallow the good line between two torn ones', () => {
    const torn = (id: string) => good(id).slice(0, 1500);
    const body = [good('a'), torn('t1'), good('b'), torn('t2'), good('c')].join('\n');
    expect(parseLitellmBody(bytes(body), selection)).toEqual([{ id: 'a' }, UNREADABLE_LINE, { id: 'b' }, UNREADABLE_LINE, { id: 'c' }]);
    // A line torn inside a multi-byte character is not UTF-8: that line alone is lost.
    const cut = Buffer.concat([bytes(`${good('d')}\n{"id":"e","m":"`), Buffer.from([0xc3]), bytes(`\n${good('f')}`)]);
    expect(parseLitellmBody(cut, selection)).toEqual([{ id: 'd' }, UNREADABLE_LINE, { id: 'f' }]);
  });

  it('reads the payloads of each format one at a time, and refuses more than the cap as soon as it passes it', () => {
    const ids = Array.from({ length: 7 }, (_, i) => `p${i}`);
    const formats = [`[${ids.map(good).join(',')}]`, ids.map(good).join('\n'), `${ids.map(good).join('\n')}\n`];
    for (const text of formats) {
      const read: string[] = [];
      for (const p of litellmBodyPayloads(bytes(text), selection, 7)) read.push((p as { id: string }).id);
      expect(read).toEqual(ids);
      const seen: unknown[] = [];
      expect(() => {
        for (const p of litellmBodyPayloads(bytes(text), selection, 6)) seen.push(p);
      }).toThrow(LitellmBodyRefused);
      expect(seen).toHaveLength(6);
    }
    expect([...litellmBodyPayloads(bytes(good('single')), selection, 1)]).toEqual([{ id: 'single' }]);
  });
});
