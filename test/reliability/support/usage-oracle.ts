// Independent oracle for the reliability and fuzz tests: generates usage events from a seed and
// prices them with its own arithmetic (not the service's), so "billed exactly once" is checked
// against numbers the service did not compute.
import { seededRandom } from '../../../src/common/random/seeded-random.js';

export const ORACLE_MODEL = 'openai/gpt-4o';
/** The price seeded by seedOracleBilling, in atto-USD per million tokens. */
export const ORACLE_PRICE = {
  inputAttoPerMtok: 2_500_000_000_000_000_000n, // 2.5 USD
  outputAttoPerMtok: 10_000_000_000_000_000_000n, // 10 USD
  cachedAttoPerMtok: 1_250_000_000_000_000_000n, // 1.25 USD
};
export const ORACLE_PRICE_BODY = {
  model: ORACLE_MODEL,
  input_usd_per_mtok: '2.5',
  output_usd_per_mtok: '10',
  cached_input_usd_per_mtok: '1.25',
  effective_from: '2026-01-01T00:00:00Z',
};
export const ORACLE_CONTRIBUTORS = [
  { id: 'c_std', tier: 'standard' as const, payout_address: '0x1111111111111111111111111111111111111111' },
  { id: 'c_prem', tier: 'premium' as const, payout_address: '0x2222222222222222222222222222222222222222' },
];
export const ORACLE_USERS = ['u_r0', 'u_r1', 'u_r2', 'u_r3'];
/** Every oracle user starts with this much credit (reference `seed-<user>`). */
export const ORACLE_USER_CREDIT_USD = '1000000';
export const ORACLE_USER_CREDIT_ATTO = 1_000_000n * 10n ** 18n;
/** Before the price's effective_from: the price applies; not in the future: accepted. */
export const ORACLE_OCCURRED_AT = '2026-11-29T10:00:00Z';

const TOKENS_PER_MTOK = 1_000_000n;
const USER_MARKUP = { num: 13n, den: 10n };
const PAYOUT_BY_TIER = { standard: { num: 11n, den: 10n }, premium: { num: 12n, den: 10n } };

export interface UsageBody {
  event_id: string;
  user_id: string;
  contributor_id: string;
  model: string;
  occurred_at: string;
  usage: { prompt_tokens: number; completion_tokens: number; cached_tokens: number; reasoning_tokens: number };
  hold_id?: string;
  metadata?: Record<string, unknown>;
}

export interface OracleAmounts {
  officialAtto: bigint;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
}

function exact(value: bigint, ratio: { num: bigint; den: bigint }): bigint {
  const scaled = value * ratio.num;
  if (scaled % ratio.den !== 0n) throw new Error(`oracle: ${value} x ${ratio.num}/${ratio.den} is not exact`);
  return scaled / ratio.den;
}

export interface OraclePrice {
  inputAttoPerMtok: bigint;
  outputAttoPerMtok: bigint;
  /** The input price when the model has no cached price. */
  cachedAttoPerMtok: bigint;
}

export type OracleTier = 'standard' | 'premium';

/** Exact amounts of one event (standard 1.1x, premium 1.2x, user 1.3x), at the oracle price by default. */
export function oracleAmounts(body: UsageBody, options: { price?: OraclePrice; tier?: OracleTier } = {}): OracleAmounts {
  const price = options.price ?? ORACLE_PRICE;
  const u = body.usage;
  const scaled =
    BigInt(u.prompt_tokens - u.cached_tokens) * price.inputAttoPerMtok +
    BigInt(u.cached_tokens) * price.cachedAttoPerMtok +
    BigInt(u.completion_tokens) * price.outputAttoPerMtok;
  if (scaled % TOKENS_PER_MTOK !== 0n) throw new Error('oracle: price not exact per token');
  const officialAtto = scaled / TOKENS_PER_MTOK;
  const tier = options.tier ?? ORACLE_CONTRIBUTORS.find((c) => c.id === body.contributor_id)?.tier;
  if (!tier) throw new Error(`oracle: unknown contributor ${body.contributor_id}`);
  const chargeAtto = exact(officialAtto, USER_MARKUP);
  const payoutAtto = exact(officialAtto, PAYOUT_BY_TIER[tier]);
  return { officialAtto, chargeAtto, payoutAtto, marginAtto: chargeAtto - payoutAtto };
}


export function randomInt(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** An endless source of unique events `${prefix}-${i}` spread over the oracle users and contributors. */
export function eventStream(input: { prefix: string; seed: number }): () => UsageBody {
  const random = seededRandom(input.seed);
  let i = 0;
  return () => {
    const prompt = randomInt(random, 1, 4000);
    const completion = randomInt(random, 1, 2000);
    const event: UsageBody = {
      event_id: `${input.prefix}-${i}`,
      user_id: ORACLE_USERS[i % ORACLE_USERS.length]!,
      contributor_id: ORACLE_CONTRIBUTORS[i % ORACLE_CONTRIBUTORS.length]!.id,
      model: ORACLE_MODEL,
      occurred_at: ORACLE_OCCURRED_AT,
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        cached_tokens: randomInt(random, 0, prompt),
        reasoning_tokens: randomInt(random, 0, completion),
      },
      metadata: { stream_id: `s-${i}` },
    };
    i += 1;
    return event;
  };
}

export function generateEvents(input: { prefix: string; count: number; seed: number }): UsageBody[] {
  return Array.from({ length: input.count }, eventStream(input));
}

export type IngestPath = 'single' | 'batch' | 'queue';

export interface Send {
  body: UsageBody;
  path: IngestPath;
  duplicate: boolean;
}

/**
 * The send plan: every unique event once on a random path, plus `duplicateRatio` of the total
 * as resends of earlier events (same payload) on a random path, shuffled so that originals and
 * duplicates race each other across paths.
 */
export function planSends(input: { events: UsageBody[]; duplicateRatio: number; seed: number; paths: IngestPath[] }): Send[] {
  const random = seededRandom(input.seed);
  const pick = () => input.paths[Math.floor(random() * input.paths.length)]!;
  const sends: Send[] = input.events.map((body) => ({ body, path: pick(), duplicate: false }));
  const duplicates = Math.round((input.events.length * input.duplicateRatio) / (1 - input.duplicateRatio));
  for (let i = 0; i < duplicates; i += 1) {
    const body = input.events[Math.floor(random() * input.events.length)]!;
    sends.push({ body, path: pick(), duplicate: true });
  }
  for (let i = sends.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [sends[i], sends[j]] = [sends[j]!, sends[i]!];
  }
  return sends;
}

/** Sum of the oracle charge per user over the given unique events. */
export function expectedChargesByUser(events: Iterable<UsageBody>): Map<string, bigint> {
  const byUser = new Map<string, bigint>();
  for (const e of events) byUser.set(e.user_id, (byUser.get(e.user_id) ?? 0n) + oracleAmounts(e).chargeAtto);
  return byUser;
}
