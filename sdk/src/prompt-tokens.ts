// Prompt tokens of a request in each wire format (Chat Completions, Responses, Anthropic Messages,
// Gemini), counted from its messages with gpt-tokenizer: the ledger needs them when a stream carries
// no usage (api.md, `prompt_tokens`). OpenAI's own counting
// recipe (openai-cookbook, "How to count tokens with tiktoken"): 3 tokens per message, 1 per name,
// 3 to prime the reply. Provider usage, when the stream carries it, always wins on the server.
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';
import type { WireFormat } from './wire-formats.js';

const TOKENS_PER_MESSAGE = 3;
const TOKENS_PER_NAME = 1;
const TOKENS_REPLY_PRIMING = 3;
/** Text tokenized per request at most: a bigger prompt is counted on its first part only, and says so by the ceiling. */
export const PROMPT_TEXT_CHARS_MAX = 4 * 1024 * 1024;

// The same families the server counts with o200k_base (its token-estimator.ts); everything else cl100k_base.
const O200K_MODEL = /^(?:gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|gpt-oss|chatgpt-4o|codex-mini|o1|o3|o4)(?![a-z0-9])/;
// Request text such as "<|endoftext|>" is counted as plain text, never refused.
const PLAIN_TEXT = { disallowedSpecial: new Set<string>() };

function counterFor(model: unknown): (text: string) => number {
  const name = typeof model === 'string' ? model.trim().toLowerCase() : '';
  const base = name.slice(name.lastIndexOf('/') + 1).replace(/^ft:/, '');
  const count = O200K_MODEL.test(base) ? countO200k : countCl100k;
  return (text) => (text === '' ? 0 : count(text, PLAIN_TEXT));
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown) => (typeof value === 'string' ? value : '');
const json = (value: unknown) => (value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/**
 * The text of a content value in any of the four formats: a string, or parts/blocks carrying
 * `text` (OpenAI parts, Responses `input_text`, Anthropic `text` blocks, Gemini parts), a tool call
 * (`tool_use` input, Gemini `functionCall` args), a tool result (nested content, `functionResponse`).
 */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map(partText).join('');
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (!isObject(part)) return '';
  if (typeof part.text === 'string') return part.text;
  if (part.type === 'tool_use') return `${str(part.name)}${json(part.input)}`;
  if (part.type === 'tool_result') return contentText(part.content);
  if (isObject(part.functionCall)) return `${str(part.functionCall.name)}${json(part.functionCall.args)}`;
  if (isObject(part.functionResponse)) return `${str(part.functionResponse.name)}${json(part.functionResponse.response)}`;
  return '';
}

function toolCallsText(toolCalls: unknown): string {
  if (!Array.isArray(toolCalls)) return '';
  return toolCalls
    .map((call) => {
      const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
      return `${typeof fn?.name === 'string' ? fn.name : ''}${typeof fn?.arguments === 'string' ? fn.arguments : ''}`;
    })
    .join('');
}

interface PromptMessage {
  role: string;
  text: string;
  name?: string;
}

/** Tokens of plain text (a completion produced so far), with the model's tokenizer. */
export function countTextTokens(model: unknown, text: string): number {
  return counterFor(model)(text.slice(0, PROMPT_TEXT_CHARS_MAX));
}

/** Counts messages by OpenAI's recipe (per message, per name, reply priming); 0 without any. */
function countMessages(model: unknown, messages: PromptMessage[]): number {
  if (messages.length === 0) return 0;
  const count = counterFor(model);
  let budget = PROMPT_TEXT_CHARS_MAX;
  let tokens = TOKENS_REPLY_PRIMING;
  for (const message of messages) {
    tokens += TOKENS_PER_MESSAGE;
    const text = message.text.slice(0, Math.max(0, budget));
    budget -= text.length;
    tokens += count(message.role) + count(text);
    if (message.name !== undefined) tokens += TOKENS_PER_NAME + count(message.name);
  }
  return tokens;
}

function chatMessages(messages: unknown): PromptMessage[] {
  if (!Array.isArray(messages)) return [];
  return messages.map((message: unknown) => {
    const m = isObject(message) ? message : {};
    return { role: str(m.role), text: `${contentText(m.content)}${toolCallsText(m.tool_calls)}`, ...(typeof m.name === 'string' ? { name: m.name } : {}) };
  });
}

/** Prompt tokens of `{model, messages}` (an OpenAI chat-completion body) or `{model, prompt}` (legacy completions); 0 without either. */
export function countPromptTokens(body: { model?: unknown; messages?: unknown; prompt?: unknown }): number {
  if (Array.isArray(body.messages) && body.messages.length > 0) return countMessages(body.model, chatMessages(body.messages));
  const prompt = Array.isArray(body.prompt) ? body.prompt.filter((p) => typeof p === 'string').join('\n') : str(body.prompt);
  return prompt === '' ? 0 : countMessages(body.model, [{ role: 'user', text: prompt }]);
}

/** Responses API: `instructions`, then `input` (a string or items: messages, function calls and their outputs). */
function responsesMessages(body: Json): PromptMessage[] {
  const messages: PromptMessage[] = [];
  if (typeof body.instructions === 'string') messages.push({ role: 'developer', text: body.instructions });
  if (typeof body.input === 'string') messages.push({ role: 'user', text: body.input });
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (!isObject(item)) continue;
    if (item.type === 'function_call') messages.push({ role: 'assistant', text: `${str(item.name)}${str(item.arguments)}` });
    else if (item.type === 'function_call_output') messages.push({ role: 'tool', text: typeof item.output === 'string' ? item.output : contentText(item.output) });
    else messages.push({ role: str(item.role), text: contentText(item.content) });
  }
  return messages;
}

/** Anthropic Messages: `system` (a string or text blocks), then `messages` with their blocks. */
function anthropicMessages(body: Json): PromptMessage[] {
  const system = contentText(body.system);
  const messages: PromptMessage[] = system === '' ? [] : [{ role: 'system', text: system }];
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (isObject(message)) messages.push({ role: str(message.role), text: contentText(message.content) });
  }
  return messages;
}

/** Gemini: `systemInstruction` (or `system_instruction`), then `contents` with their parts. */
function geminiMessages(body: Json): PromptMessage[] {
  const system = body.systemInstruction ?? body.system_instruction;
  const messages: PromptMessage[] = isObject(system) ? [{ role: 'system', text: contentText(system.parts) }] : [];
  for (const content of Array.isArray(body.contents) ? body.contents : []) {
    if (isObject(content)) messages.push({ role: str(content.role), text: contentText(content.parts) });
  }
  return messages;
}

/**
 * Prompt tokens of a request body in its wire format (`model` names the tokenizer: o200k_base for
 * OpenAI's recent families, cl100k_base otherwise, an estimate for other vendors' models). The
 * server uses it only when the answer carries no usage.
 */
export function countRequestPromptTokens(format: WireFormat, body: Json, model: unknown): number {
  if (format === 'openai-chat') return countPromptTokens({ ...body, model });
  const messages = format === 'openai-responses' ? responsesMessages(body) : format === 'anthropic-messages' ? anthropicMessages(body) : geminiMessages(body);
  return countMessages(model, messages);
}
