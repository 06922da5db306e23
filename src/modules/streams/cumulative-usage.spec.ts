// Usage is cumulative in every format: whatever running counts a stream sends, and however its
// bytes are cut, the call is billed on the last value of each field, never on a sum.
import fc from 'fast-check';
import { reassembleSse } from './sse-reassembler.js';
import { splitAt } from './testing/sse-test-helpers.js';

const sse = (events: Array<Record<string, unknown>>, named = true) =>
  events.map((e) => `${named && typeof e.type === 'string' ? `event: ${e.type}\n` : ''}data: ${JSON.stringify(e)}\n\n`).join('');

/** Running counts: each step adds something, as a cumulative usage does. */
const running = fc.array(fc.record({ input: fc.nat(5000), output: fc.nat(500), read: fc.nat(3000), write: fc.nat(2000), oneHour: fc.nat(1), searches: fc.nat(3) }), { minLength: 1, maxLength: 6 }).map((steps) => {
  let acc = { input: 0, output: 0, read: 0, write: 0, oneHour: 0, searches: 0 };
  return steps.map((s) => (acc = { input: acc.input + s.input, output: acc.output + s.output, read: acc.read + s.read, write: acc.write + s.write, oneHour: Math.min(acc.write + s.write, acc.oneHour + s.oneHour * 100), searches: acc.searches + s.searches }));
});
const cuts = fc.array(fc.nat(), { maxLength: 30 });

describe('Anthropic Messages: message_start then several message_delta usages', () => {
  it('last present value per field, never summed, for any chunking', () => {
    fc.assert(
      fc.property(running, cuts, fc.boolean(), (steps, offsets, dropInput) => {
        const [first, ...rest] = steps;
        const events: Array<Record<string, unknown>> = [
          { type: 'message_start', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: first!.input, output_tokens: first!.output, cache_read_input_tokens: first!.read, cache_creation_input_tokens: first!.write, cache_creation: { ephemeral_5m_input_tokens: first!.write - first!.oneHour, ephemeral_1h_input_tokens: first!.oneHour } } } },
          { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
          { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } },
          // message_delta often leaves input_tokens out: the message_start's then stays.
          ...rest.map((s) => ({ type: 'message_delta', delta: { stop_reason: null }, usage: { ...(dropInput ? {} : { input_tokens: s.input }), output_tokens: s.output, cache_read_input_tokens: s.read, cache_creation_input_tokens: s.write, server_tool_use: { web_search_requests: s.searches } } })),
          { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: {} },
          { type: 'message_stop' },
        ];
        const body = new TextEncoder().encode(sse(events));
        const result = reassembleSse(splitAt(body, offsets.map((o) => o % (body.length + 1))));
        const last = steps.at(-1)!;
        const input = dropInput ? first!.input : last.input;
        const searches = rest.length === 0 ? 0 : last.searches;
        expect(result.usage).toMatchObject({ prompt_tokens: input + last.read + last.write, completion_tokens: last.output, cached_tokens: last.read });
        // The 1h part is message_start's breakdown (message_delta sends totals only); 5m the rest.
        expect((result.usage!.cache_write_5m_tokens ?? 0) + (result.usage!.cache_write_1h_tokens ?? 0)).toBe(Math.max(last.write, first!.oneHour));
        expect(result.usage!.web_search_calls ?? 0).toBe(searches);
        expect(result).toMatchObject({ finish_reason: 'end_turn', truncated: false, content: 'hi' });
      }),
      { numRuns: 150, seed: 33 },
    );
  });
});

describe('OpenAI Responses: usage of the terminal event only', () => {
  it('in-progress responses carry no usage; the terminal one is billed whole, once', () => {
    fc.assert(
      fc.property(running, cuts, (steps, offsets) => {
        const last = steps.at(-1)!;
        const events = [
          ...steps.slice(0, -1).map((s) => ({ type: 'response.in_progress', response: { model: 'gpt-5', status: 'in_progress', usage: { input_tokens: s.input, output_tokens: s.output } } })),
          { type: 'response.output_text.delta', output_index: 0, delta: 'hi' },
          { type: 'response.completed', response: { model: 'gpt-5', status: 'completed', service_tier: 'default', usage: { input_tokens: last.input + last.read, input_tokens_details: { cached_tokens: last.read }, output_tokens: last.output, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: last.input + last.read + last.output } } },
        ];
        const body = new TextEncoder().encode(sse(events));
        const result = reassembleSse(splitAt(body, offsets.map((o) => o % (body.length + 1))));
        expect(result.usage).toMatchObject({ prompt_tokens: last.input + last.read, completion_tokens: last.output, cached_tokens: last.read });
        expect(result).toMatchObject({ finish_reason: 'completed', service_tier: 'default', truncated: false });
      }),
      { numRuns: 100, seed: 34 },
    );
  });
});

describe('Gemini: the last complete usageMetadata', () => {
  it('running usageMetadata on every chunk: the last complete one, never summed; incomplete ones skipped', () => {
    fc.assert(
      fc.property(running, cuts, (steps, offsets) => {
        const chunks = steps.flatMap((s, i) => [
          { candidates: [{ index: 0, content: { role: 'model', parts: [{ text: `t${i}` }] } }], usageMetadata: { promptTokenCount: s.input, candidatesTokenCount: s.output, thoughtsTokenCount: s.read, toolUsePromptTokenCount: s.write }, modelVersion: 'gemini-2.5-flash' },
          { candidates: [{ content: { parts: [{ text: 'x', thought: true }] } }], usageMetadata: { trafficType: 'ON_DEMAND' } },
        ]);
        chunks.push({ candidates: [{ index: 0, content: { parts: [{ text: '' }] }, finishReason: 'STOP' }] } as never);
        const body = new TextEncoder().encode(sse(chunks, false));
        const result = reassembleSse(splitAt(body, offsets.map((o) => o % (body.length + 1))));
        const last = steps.at(-1)!;
        expect(result.usage).toMatchObject({ prompt_tokens: last.input + last.write, completion_tokens: last.output + last.read, reasoning_tokens: last.read });
        expect(result.content).toBe(steps.map((_, i) => `t${i}`).join(''));
        expect(result).toMatchObject({ finish_reason: 'STOP', truncated: false });
      }),
      { numRuns: 100, seed: 35 },
    );
  });
});
