// A non-streamed response body of any wire format (POST /v1/usage-events/response) read by the
// same accumulator as its stream: the body is replayed as the events its stream would have sent,
// so both routes bill one call alike. Pure.
import { createAccumulator } from './format-accumulators.js';
import { DEFAULT_REASSEMBLER_LIMITS, type ReassembledStream, type StreamError, isPlainObject } from './reassembler-types.js';
import { formatOfResponse, type StreamFormat } from './stream-format.js';

type Event = [type: string, data: Record<string, unknown>];

export type ResponseReassembly = { ok: true; stream: ReassembledStream } | { ok: false; message: string };

/** null format: detected from the body; a body of another format (or of none) is refused. */
export function reassembleResponse(body: unknown, format?: StreamFormat): ResponseReassembly {
  const found = formatOfResponse(body);
  if (found === null) return { ok: false, message: 'the body is not a chat.completion, Responses response, Anthropic message or Gemini GenerateContentResponse' };
  if (format !== undefined && found !== format) return { ok: false, message: `the body is ${found}, not ${format}` };
  const accumulator = createAccumulator(found, DEFAULT_REASSEMBLER_LIMITS);
  let error: StreamError | null = null;
  let events = 0;
  for (const [type, data] of eventsOf(found, body)) {
    events++;
    error = accumulator.apply(type, data);
    if (error !== null) break;
  }
  return {
    ok: true,
    stream: { format: found, ...accumulator.finish(), error, truncated: false, done: true, events, bytes: 0 },
  };
}

function eventsOf(format: StreamFormat, body: unknown): Event[] {
  switch (format) {
    case 'openai-chat':
      return chatEvents(body as Record<string, unknown>);
    case 'openai-responses':
      return responsesEvents(body as Record<string, unknown>);
    case 'anthropic-messages':
      return anthropicEvents(body as Record<string, unknown>);
    case 'gemini':
      return (Array.isArray(body) ? body : [body]).map((item) => ['message', item as Record<string, unknown>]);
  }
}

/** A chat.completion as one chunk: each choice's message is its delta. */
function chatEvents(body: Record<string, unknown>): Event[] {
  const choices = Array.isArray(body.choices) ? body.choices : [];
  const chunk = {
    ...body,
    choices: choices.map((choice) => (isPlainObject(choice) ? { ...choice, delta: choice.message } : choice)),
  };
  return [['message', chunk]];
}

/** Each output item as its stream announces it (message text as one delta), then the terminal event. */
function responsesEvents(body: Record<string, unknown>): Event[] {
  const events: Event[] = [['message', { type: 'response.created', response: body }]];
  (body.output as unknown[]).forEach((item, outputIndex) => {
    if (!isPlainObject(item)) return;
    events.push(['message', { type: 'response.output_item.done', output_index: outputIndex, item }]);
    if (item.type !== 'message' || !Array.isArray(item.content)) return;
    for (const part of item.content) {
      if (isPlainObject(part) && part.type === 'output_text') events.push(['message', { type: 'response.output_text.delta', output_index: outputIndex, delta: part.text }]);
    }
  });
  const status = body.status === 'incomplete' || body.status === 'failed' ? body.status : 'completed';
  events.push(['message', { type: `response.${status}`, response: body }]);
  return events;
}

/** message_start without content, each block as start + one delta, message_delta, message_stop. */
function anthropicEvents(body: Record<string, unknown>): Event[] {
  const events: Event[] = [['message', { type: 'message_start', message: { ...body, content: [] } }]];
  (body.content as unknown[]).forEach((block, index) => {
    if (!isPlainObject(block)) return;
    if (block.type === 'text') {
      events.push(['message', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }]);
      events.push(['message', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } }]);
    } else if (block.type === 'tool_use') {
      events.push(['message', { type: 'content_block_start', index, content_block: { ...block, input: {} } }]);
      const json = block.input === undefined ? '' : JSON.stringify(block.input);
      events.push(['message', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json } }]);
    } else if (block.type === 'thinking') {
      events.push(['message', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } }]);
      events.push(['message', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } }]);
    } else {
      events.push(['message', { type: 'content_block_start', index, content_block: block }]);
    }
  });
  events.push(['message', { type: 'message_delta', delta: { stop_reason: body.stop_reason, stop_sequence: body.stop_sequence }, usage: body.usage }]);
  events.push(['message', { type: 'message_stop' }]);
  return events;
}
