import { StreamReassembler } from './sse-reassembler.js';
import { planStreamBilling } from './stream-billing.js';
import { choiceChunk, sseBody } from './testing/sse-test-helpers.js';

function reassemble(body: string) {
  const reassembler = new StreamReassembler();
  reassembler.push(body);
  return reassembler.end();
}

describe('planStreamBilling: stored stream details', () => {
  it('bills a stream whose provider text Postgres cannot store, with that text repaired', () => {
    const body = sseBody([
      choiceChunk({ tool_calls: [{ index: 0, id: 'call_\ud800', type: 'function', function: { name: 'get\u0000weather', arguments: '{}' } }] }),
      choiceChunk({}, { finish_reason: 'stop\udc00', usage: { prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 } }),
    ]);
    const plan = planStreamBilling(reassemble(body), { event_id: 'e1', user_id: 'u1', contributor_id: 'c1' }, 'sha');
    expect(plan.ok).toBe(true);
    if (!plan.ok) return;
    expect(plan.details.tool_calls).toEqual([{ index: 0, id: 'call_\ufffd', name: 'get\ufffdweather', arguments_valid: true }]);
    expect(plan.details.finish_reason).toBe('stop\ufffd');
    expect(plan.payload.usage).toEqual({ prompt_tokens: 5, completion_tokens: 5, cached_tokens: 0, reasoning_tokens: 0 });
  });

  it('keeps well-formed text, emoji included, as it was', () => {
    const body = sseBody([
      choiceChunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'wetter_☀️', arguments: '{}' } }] }),
      choiceChunk({}, { finish_reason: 'tool_calls', usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }),
    ]);
    const plan = planStreamBilling(reassemble(body), { event_id: 'e1', user_id: 'u1', contributor_id: 'c1' }, 'sha');
    expect(plan.ok && plan.details.tool_calls[0]?.name).toBe('wetter_☀️');
  });
});

describe('planStreamBilling: usage and variant in api.md names', () => {
  const query = { event_id: 'e1', user_id: 'u1', contributor_id: 'c1' };
  const plan = (chunks: unknown[], extra: Partial<Parameters<typeof planStreamBilling>[1]> = {}) => {
    const result = planStreamBilling(reassemble(sseBody(chunks)), { ...query, ...extra }, 'sha');
    if (!result.ok) throw new Error(result.message);
    return result.payload;
  };
  const anthropicViaLiteLlm = {
    prompt_tokens: 6050,
    completion_tokens: 300,
    total_tokens: 6350,
    prompt_tokens_details: { cached_tokens: 2000, cache_creation_tokens: 4000 },
    cache_creation_input_tokens: 4000,
    cache_read_input_tokens: 2000,
    cache_creation: { ephemeral_5m_input_tokens: 1000, ephemeral_1h_input_tokens: 3000 },
    server_tool_use: { web_search_requests: 2 },
  };

  it('forwards every provider-reported kind (non-zero ones), never total_tokens', () => {
    const payload = plan([choiceChunk({ content: 'hi' }), choiceChunk({}, { finish_reason: 'stop', usage: anthropicViaLiteLlm })]);
    expect(payload.usage).toEqual({
      prompt_tokens: 6050,
      completion_tokens: 300,
      cached_tokens: 2000,
      reasoning_tokens: 0,
      cache_write_5m_tokens: 1000,
      cache_write_1h_tokens: 3000,
      web_search_calls: 2,
    });
    expect(payload).not.toHaveProperty('price_variant');
  });

  it('bills at a service_tier not dearer than the request (standard when none is named); default and standard are left out (absent = standard)', () => {
    const done = (tier: string) => choiceChunk({}, { finish_reason: 'stop', service_tier: tier, usage: { prompt_tokens: 1, completion_tokens: 1 } });
    expect(plan([done('flex')]).price_variant).toBe('flex');
    expect(plan([done('default')])).not.toHaveProperty('price_variant');
    expect(plan([done('standard')])).not.toHaveProperty('price_variant');
    // A dearer tier than the one requested is a claim: the requested variant is billed (api.md "Contributor trust").
    expect(plan([done('priority')])).not.toHaveProperty('price_variant');
    expect(plan([done('priority')], { price_variant: 'priority' }).price_variant).toBe('priority');
  });

  it('the requested variant is billed when the stream claims a dearer one, a cheaper tier is believed, also for an estimated stream', () => {
    const flex = choiceChunk({ content: 'x' }, { finish_reason: 'stop', service_tier: 'flex', usage: { prompt_tokens: 1, completion_tokens: 1 } });
    expect(plan([flex], { price_variant: 'batch' }).price_variant).toBe('batch');
    expect(plan([flex], { price_variant: 'standard' }).price_variant).toBe('flex');
    expect(plan([flex], { price_variant: 'priority' }).price_variant).toBe('flex');
    const estimated = plan([choiceChunk({ content: 'hello' }, { finish_reason: 'stop', service_tier: 'flex' })], { prompt_tokens: 3, model: 'gpt-4o' });
    expect(estimated).toMatchObject({ price_variant: 'flex', usage: { prompt_tokens: 3, cached_tokens: 0, reasoning_tokens: 0 } });
  });
});
