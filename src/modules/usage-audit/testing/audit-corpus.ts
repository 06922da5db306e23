// Realistic completions for the usage audit's tests and its measurement script: English prose,
// code, JSON tool calls and CJK text, built from a seeded generator (reproducible), and the
// completion tokens an honest provider would report for them, with provider-like noise.
import { seededRandom } from '../../../common/random/seeded-random.js';

export type ContentKind = 'english' | 'code' | 'tool_call' | 'cjk' | 'reasoning';

export interface Completion {
  kind: ContentKind;
  content: string;
  reasoning: string;
  toolCalls: Array<{ name: string; arguments_raw: string }>;
}

const WORDS = (
  'the ledger settles contributor payouts every night and each usage event is priced at the time it occurred ' +
  'tokens are counted by the provider while the gateway streams the completion back to the caller so that ' +
  'a refund claws back exactly the share of the payout that was paid for the refunded part of the charge ' +
  'we recommend checking the balance before placing a hold because a hold reserves credit until captured'
).split(' ');
const IDENTIFIERS = ['amountAtto', 'contributorId', 'payoutAddress', 'settlementLines', 'priceBook', 'eventId', 'holdId', 'usage'];
const CJK = '台帳は毎晩貢献者への支払いを精算し各利用イベントは発生時点の価格で計算されます。払い戻しは支払いの同じ割合を回収します。模型输出的令牌由提供者计数网关将完成结果流式传回调用者。'.split('');
const TOOLS = ['get_weather', 'search_documents', 'create_invoice', 'lookup_contributor'];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)]!;
}

function sentence(next: () => number): string {
  const n = 6 + Math.floor(next() * 14);
  const words = Array.from({ length: n }, () => pick(next, WORDS));
  return words.join(' ').replace(/^./, (c) => c.toUpperCase()) + pick(next, ['.', '.', '?', '!']);
}

function english(next: () => number): string {
  const sentences = 2 + Math.floor(next() * 25);
  return Array.from({ length: sentences }, () => sentence(next)).join(next() < 0.2 ? '\n\n' : ' ');
}

function code(next: () => number): string {
  const lines = 4 + Math.floor(next() * 40);
  const body = Array.from({ length: lines }, (_, i) => {
    const a = pick(next, IDENTIFIERS);
    const b = pick(next, IDENTIFIERS);
    return `  const ${a}${i} = await ${b}.get(${Math.floor(next() * 1000)}n); // ${pick(next, WORDS)} ${pick(next, WORDS)}`;
  });
  return `Here is the function:\n\n\`\`\`ts\nexport async function run(input: Input): Promise<bigint> {\n${body.join('\n')}\n  return 0n;\n}\n\`\`\``;
}

function cjk(next: () => number): string {
  const n = 20 + Math.floor(next() * 400);
  return Array.from({ length: n }, () => pick(next, CJK)).join('');
}

function toolCall(next: () => number): Array<{ name: string; arguments_raw: string }> {
  const calls = 1 + Math.floor(next() * 3);
  return Array.from({ length: calls }, () => ({
    name: pick(next, TOOLS),
    arguments_raw: JSON.stringify({
      query: Array.from({ length: 2 + Math.floor(next() * 8) }, () => pick(next, WORDS)).join(' '),
      limit: Math.floor(next() * 100),
      filters: { contributor_id: `c_${Math.floor(next() * 99)}`, since: '2026-11-01T00:00:00Z', include_archived: next() < 0.5 },
    }),
  }));
}

/** A seeded mix of the four kinds (and some reasoning text), like a real model's traffic. */
export function completionCorpus(size: number, seed: number): Completion[] {
  const next = seededRandom(seed);
  return Array.from({ length: size }, (): Completion => {
    const roll = next();
    if (roll < 0.4) return { kind: 'english', content: english(next), reasoning: '', toolCalls: [] };
    if (roll < 0.65) return { kind: 'code', content: code(next), reasoning: '', toolCalls: [] };
    if (roll < 0.8) return { kind: 'tool_call', content: '', reasoning: '', toolCalls: toolCall(next) };
    if (roll < 0.92) return { kind: 'cjk', content: cjk(next), reasoning: '', toolCalls: [] };
    return { kind: 'reasoning', content: english(next), reasoning: english(next), toolCalls: [] };
  });
}

/**
 * What an honest provider reports for a completion whose tokens we count as `counted`: its own
 * tokenizer's count (for another family: `familyFactor` times ours, varying by content kind), plus
 * the few tokens of chat/tool-call framing, plus per-request jitter (cached prefixes, BOS/EOS).
 */
export function honestReport(counted: number, kind: ContentKind, next: () => number, familyFactor = 1): number {
  const kindBias = familyFactor === 1 ? 1 : { english: 1, code: 1.04, tool_call: 1.06, cjk: 0.9, reasoning: 1 }[kind];
  const tokenizerJitter = familyFactor === 1 ? 1 : 1 + (next() - 0.5) * 0.06;
  const framing = Math.floor(next() * 4) + (kind === 'tool_call' ? 3 : 0);
  return Math.max(1, Math.round(counted * familyFactor * kindBias * tokenizerJitter) + framing);
}

/** A standard normal draw (Box-Muller) from the seeded generator. */
function normal(next: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
}

/**
 * One request's prompt as an honest provider and the gateway count it: the provider's own count
 * (log-normal sizes, median 800 tokens, 10 to 100,000), and the gateway's (ledgerFetch counts the
 * messages with OpenAI's tokenizer): for an OpenAI model short by the chat framing (3 tokens a
 * message, 1 to 10 messages, plus 3); for another family (`familyFactor`, as honestReport) its
 * tokenizer's count differs from ours by that factor with +/-3% per request.
 */
export function honestPrompt(next: () => number, familyFactor = 1): { reported: number; gateway: number } {
  const reported = Math.min(100_000, Math.max(10, Math.round(800 * Math.exp(1.2 * normal(next)))));
  if (familyFactor === 1) {
    const framing = 3 * (1 + Math.floor(next() * 10)) + 3;
    return { reported, gateway: Math.max(1, reported - framing) };
  }
  return { reported, gateway: Math.max(1, Math.round(reported / (familyFactor * (1 + (next() - 0.5) * 0.06)))) };
}

/**
 * Hidden reasoning tokens an honest provider reports for a completion with `visible` output tokens:
 * no one can count them, and they depend on the problem more than on the answer's length, so
 * log-normal around `medianRatio` times the visible output with a wide per-request spread
 * (sigma 0.6: half of the requests between 0.67x and 1.5x the median ratio, 5% beyond 2.7x).
 */
export function honestHiddenReasoning(visible: number, next: () => number, medianRatio = 2, sigma = 0.6): number {
  return Math.max(0, Math.round(visible * medianRatio * Math.exp(sigma * normal(next))));
}
