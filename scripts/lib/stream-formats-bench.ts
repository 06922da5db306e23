// Issue #33 "Performance": a stream of each wire format costs within 1.2x the API CPU of a Chat
// Completions stream of the same size. The same completions (content a word per event, tool calls
// in argument pieces, provider usage) framed as each format streams them; bench.ts posts each set
// to POST /v1/usage-events/stream (runStreamLoad) and compares API CPU per event in one run.
import { streamBodyOf } from './stream-audit-bench.js';
import { completionCorpus, type Completion } from '../../src/modules/usage-audit/testing/audit-corpus.js';
import type { StreamFormat } from '../../src/modules/streams/stream-format.js';

const CORPUS_SIZE = 400;
const CORPUS_SEED = 33;

export const BENCH_FORMATS: readonly StreamFormat[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'];

export interface FormatBodies {
  format: StreamFormat;
  bodies: string[];
  meanBytes: number;
}

/** One word (and its trailing space) per delta, as in the stream-audit bodies. */
const words = (text: string): string[] => text.match(/\S+\s*|\s+/g) ?? [];
const pieces = (text: string): string[] => text.match(/[\s\S]{1,12}/g) ?? [];
const promptTokensOf = (index: number) => 350 + (index % 900);

/** An `event:` line and its data, as the Responses and Anthropic APIs frame every event. */
const namedEvents = (events: Array<Record<string, unknown>>): string => events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');

function responsesBody(completion: Completion, index: number, completionTokens: number): string {
  const id = `resp_bench${index}`;
  const model = 'gpt-4o-2024-08-06';
  const shell = { id, object: 'response', created_at: 1_764_000_000 + index, model, service_tier: 'default' };
  const message = { type: 'message', id: `msg_${index}`, status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: completion.content, annotations: [] }] };
  const calls = completion.toolCalls.map((call, i) => ({ type: 'function_call', id: `fc_${index}_${i}`, call_id: `call_${index}_${i}`, name: call.name, arguments: call.arguments_raw, status: 'completed' }));
  const events: Array<Record<string, unknown>> = [
    { type: 'response.created', response: { ...shell, status: 'in_progress', output: [], usage: null } },
    { type: 'response.in_progress', response: { ...shell, status: 'in_progress', output: [], usage: null } },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    { type: 'response.content_part.added', item_id: message.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } },
  ];
  for (const delta of words(completion.content)) events.push({ type: 'response.output_text.delta', item_id: message.id, output_index: 0, content_index: 0, delta, logprobs: [] });
  events.push({ type: 'response.output_text.done', item_id: message.id, output_index: 0, content_index: 0, text: completion.content, logprobs: [] });
  events.push({ type: 'response.output_item.done', output_index: 0, item: message });
  calls.forEach((call, i) => {
    events.push({ type: 'response.output_item.added', output_index: i + 1, item: { ...call, arguments: '', status: 'in_progress' } });
    for (const delta of pieces(call.arguments)) events.push({ type: 'response.function_call_arguments.delta', item_id: call.id, output_index: i + 1, delta });
    events.push({ type: 'response.function_call_arguments.done', item_id: call.id, output_index: i + 1, arguments: call.arguments });
    events.push({ type: 'response.output_item.done', output_index: i + 1, item: call });
  });
  const prompt = promptTokensOf(index);
  const usage = { input_tokens: prompt, input_tokens_details: { cached_tokens: 0 }, output_tokens: completionTokens, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: prompt + completionTokens };
  events.push({ type: 'response.completed', response: { ...shell, status: 'completed', output: [message, ...calls], usage } });
  return namedEvents(events.map((e, sequence_number) => ({ ...e, sequence_number })));
}

function anthropicBody(completion: Completion, index: number, completionTokens: number): string {
  const events: Array<Record<string, unknown>> = [
    { type: 'message_start', message: { id: `msg_bench${index}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: promptTokensOf(index), cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1, service_tier: 'standard' } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    { type: 'ping' },
  ];
  for (const text of words(completion.content)) events.push({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
  events.push({ type: 'content_block_stop', index: 0 });
  completion.toolCalls.forEach((call, i) => {
    events.push({ type: 'content_block_start', index: i + 1, content_block: { type: 'tool_use', id: `toolu_${index}_${i}`, name: call.name, input: {} } });
    for (const partial_json of pieces(call.arguments_raw)) events.push({ type: 'content_block_delta', index: i + 1, delta: { type: 'input_json_delta', partial_json } });
    events.push({ type: 'content_block_stop', index: i + 1 });
  });
  events.push({ type: 'message_delta', delta: { stop_reason: completion.toolCalls.length > 0 ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: completionTokens } });
  events.push({ type: 'message_stop' });
  return namedEvents(events);
}

function geminiBody(completion: Completion, index: number, completionTokens: number): string {
  const prompt = promptTokensOf(index);
  const base = { modelVersion: 'gemini-2.5-flash', responseId: `bench${index}` };
  const chunk = (parts: unknown[], extra: Record<string, unknown> = {}, usage: Record<string, unknown> = { promptTokenCount: prompt, totalTokenCount: prompt }) =>
    `data: ${JSON.stringify({ candidates: [{ content: { parts, role: 'model' }, index: 0, ...extra }], usageMetadata: usage, ...base })}\r\n\r\n`;
  const out = words(completion.content).map((text) => chunk([{ text }]));
  // Gemini sends a call whole, its arguments an object (never streamed outside Vertex).
  const calls = completion.toolCalls.map((call) => ({ functionCall: { name: call.name, args: argsOf(call.arguments_raw) } }));
  out.push(chunk(calls.length > 0 ? calls : [{ text: '' }], { finishReason: 'STOP' }, { promptTokenCount: prompt, candidatesTokenCount: completionTokens, totalTokenCount: prompt + completionTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: prompt }] }));
  return out.join('');
}

function argsOf(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return { raw };
  }
}

/** The same completions in each format; chat's are the stream-audit bodies without reasoning. */
export function formatBodies(): FormatBodies[] {
  const completions = completionCorpus(CORPUS_SIZE, CORPUS_SEED).map((c) => ({ ...c, reasoning: '' }));
  const chat = completions.map((c, i) => streamBodyOf(c, i));
  const build: Record<StreamFormat, (c: Completion, i: number) => string> = {
    'openai-chat': (_c, i) => chat[i]!.body,
    'openai-responses': (c, i) => responsesBody(c, i, chat[i]!.completionTokens),
    'anthropic-messages': (c, i) => anthropicBody(c, i, chat[i]!.completionTokens),
    gemini: (c, i) => geminiBody(c, i, chat[i]!.completionTokens),
  };
  return BENCH_FORMATS.map((format) => {
    const bodies = completions.map((c, i) => build[format](c, i));
    return { format, bodies, meanBytes: bodies.reduce((sum, b) => sum + Buffer.byteLength(b), 0) / bodies.length };
  });
}
