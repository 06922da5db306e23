// Prompt tokens of a chat-completion request, counted from its messages with gpt-tokenizer: the
// ledger needs them when a stream carries no usage (api.md, `prompt_tokens`). OpenAI's own counting
// recipe (openai-cookbook, "How to count tokens with tiktoken"): 3 tokens per message, 1 per name,
// 3 to prime the reply. Provider usage, when the stream carries it, always wins on the server.
import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

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

/** The text of a message's content: a string, or the text parts of an array of parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string' ? (part as { text: string }).text : ''))
    .join('');
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

/** Prompt tokens of `{model, messages}` (an OpenAI chat-completion body); 0 without messages. */
export function countPromptTokens(body: { model?: unknown; messages?: unknown }): number {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 0;
  const count = counterFor(body.model);
  let budget = PROMPT_TEXT_CHARS_MAX;
  let tokens = TOKENS_REPLY_PRIMING;
  for (const message of body.messages as Array<Record<string, unknown>>) {
    tokens += TOKENS_PER_MESSAGE;
    const role = typeof message?.role === 'string' ? message.role : '';
    const text = `${contentText(message?.content)}${toolCallsText(message?.tool_calls)}`.slice(0, Math.max(0, budget));
    budget -= text.length;
    tokens += count(role) + count(text);
    if (typeof message?.name === 'string') tokens += TOKENS_PER_NAME + count(message.name);
  }
  return tokens;
}
