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
