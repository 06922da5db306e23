// What the usage audit counts for one stream: the completion tokens of the content the service
// reassembled, with a tokenizer for the model's family; and what it takes as reported (prompt
// tokens beside the gateway's own count, hidden reasoning tokens). Pure.
import type { ReassembledStream } from '../streams/reassembler-types.js';
import { countTextTokens, encodingForModel, normalizeModelName, type TokenEncodingName } from '../streams/token-estimator.js';
import type { UsageAuditSample } from '../../queue/jobs.js';

/**
 * OpenAI families are counted with their own encoding (gpt-tokenizer: o200k_base, cl100k_base).
 * No well-kept npm tokenizer exists for the other families that runs offline without the
 * vendor's files (Anthropic's package covers only Claude 2; Llama/Mistral need tokenizer.json):
 * they are counted with cl100k_base as an estimate. The audit compares a contributor with the
 * model's other contributors, so the estimate's bias, the same for everyone serving that model,
 * cancels; only its noise remains (docs/usage-audit.md states the measured band).
 */
const OPENAI_FAMILY = /^(?:gpt-|chatgpt-|o\d|codex-|text-davinci|davinci|babbage)/;

export type AuditCounter = TokenEncodingName | 'cl100k_base~estimate';

export function counterForModel(model: string): AuditCounter {
  const encoding = encodingForModel(model);
  return OPENAI_FAMILY.test(normalizeModelName(model)) ? encoding : 'cl100k_base~estimate';
}

/** Texts of a stream that are completion tokens: content, reasoning text, tool-call names and arguments. */
export function completionTextsOf(stream: Pick<ReassembledStream, 'content' | 'reasoning' | 'tool_calls'>): string[] {
  const texts = [stream.content, stream.reasoning, ...stream.tool_calls.flatMap((c) => [c.name, c.arguments_raw])];
  return texts.filter((t) => t !== '');
}

/**
 * The reported completion tokens comparable with what can be counted: a provider that hides its
 * reasoning (reasoning_tokens > 0, no reasoning text streamed) reports tokens nobody can count,
 * so they are left out of both sides.
 */
export function comparableReportedTokens(stream: Pick<ReassembledStream, 'reasoning' | 'usage'>): number | null {
  if (!stream.usage) return null;
  const completion = stream.usage.completion_tokens;
  const hiddenReasoning = stream.reasoning === '' ? (stream.usage.reasoning_tokens ?? 0) : 0;
  return Math.max(0, completion - hiddenReasoning);
}

/**
 * What the audit takes from a stream beside the completion texts: the provider's prompt tokens
 * with the gateway's own count (the route's `prompt_tokens` parameter, which ledgerFetch always
 * sends), and reasoning tokens reported without reasoning text. The stream route spreads this
 * into the sample it offers.
 */
export function promptAndReasoningOf(
  stream: Pick<ReassembledStream, 'reasoning' | 'usage'>,
  gatewayPromptTokens: number | undefined,
): Pick<UsageAuditSample, 'reported_prompt_tokens' | 'gateway_prompt_tokens' | 'hidden_reasoning_tokens'> {
  const usage = stream.usage;
  if (!usage) return {};
  const prompt = gatewayPromptTokens !== undefined && gatewayPromptTokens > 0 ? { reported_prompt_tokens: usage.prompt_tokens, gateway_prompt_tokens: gatewayPromptTokens } : {};
  const reasoning = stream.reasoning === '' && usage.reasoning_tokens !== undefined ? { hidden_reasoning_tokens: usage.reasoning_tokens } : {};
  return { ...prompt, ...reasoning };
}

export interface CountedSample {
  eventId: string;
  contributorId: string;
  model: string;
  occurredAt: Date;
  reportedTokens: number;
  countedTokens: number;
  counter: AuditCounter;
  /** Both null when the gateway sent no count of its own. */
  reportedPromptTokens: number | null;
  gatewayPromptTokens: number | null;
  /** Hidden reasoning tokens (their ratio to countedTokens is audited); null when not reported. */
  reasoningTokens: number | null;
}

/** Counts one sample; null when there is nothing to count (no ratio can be formed). */
export function countSample(sample: UsageAuditSample): CountedSample | null {
  const counter = counterForModel(sample.model);
  const encoding: TokenEncodingName = counter === 'cl100k_base~estimate' ? 'cl100k_base' : counter;
  let counted = 0;
  for (const text of sample.texts) counted += countTextTokens(text, encoding);
  if (counted === 0) return null;
  return {
    eventId: sample.event_id,
    contributorId: sample.contributor_id,
    model: sample.model,
    occurredAt: new Date(sample.occurred_at),
    reportedTokens: sample.reported_tokens,
    countedTokens: counted,
    counter,
    reportedPromptTokens: sample.gateway_prompt_tokens !== undefined ? (sample.reported_prompt_tokens ?? null) : null,
    gatewayPromptTokens: sample.reported_prompt_tokens !== undefined ? (sample.gateway_prompt_tokens ?? null) : null,
    reasoningTokens: sample.hidden_reasoning_tokens ?? null,
  };
}
