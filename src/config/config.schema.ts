// The environment, parsed once at boot by one zod schema. This module is the only reader of
// process.env; a bad variable stops start-up with a message naming it.
import { readFileSync } from 'node:fs';
import { parseClusterNodes } from './redis-cluster-nodes.js';
import { z } from 'zod';
import { MoneyFormatError, parseMultiplier, parseUsdToAtto, type DecimalMultiplier } from '../common/money/index.js';
import { API_KEY_TEXT, API_KEY_TEXT_MESSAGE } from '../common/validation/api-key-text.js';
import { timestampSchema } from '../common/validation/fields.js';

const multiplier = (name: string, fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx): DecimalMultiplier => {
      try {
        return parseMultiplier(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: `${name} ${(error as MoneyFormatError).message}` });
        return z.NEVER;
      }
    });

const usdAmount = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((text, ctx): bigint => {
      try {
        return parseUsdToAtto(text, { decimalsMax: 6 });
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

/** Most user paths LITELLM_USER_FIELDS may list. */
const LITELLM_USER_FIELDS_MAX = 16;

const intFromEnv = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);
const optionalText = z.string().trim().min(1).optional();
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address').optional();
const privateKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex key').optional();
const booleanFromEnv = (fallback: boolean) =>
  z.enum(['true', 'false', '1', '0']).default(fallback ? 'true' : 'false').transform((v) => v === 'true' || v === '1');

export const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/ledger'),
  DATABASE_POOL_MAX: intFromEnv(20, 1, 500),
  /** A streaming replica for read-only endpoints (earnings, statements, CSV, lists); none: the primary. */
  READ_DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** `host:port,...` of a Redis Cluster for BullMQ, the shared limits and replay ids (instead of REDIS_URL). */
  REDIS_CLUSTER_NODES: z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      try {
        return parseClusterNodes(text);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  /** BullMQ key prefix: lets several deployments (or test runs) share one Redis safely. On a Redis
   * Cluster it must be a hash tag (`{ledger}`) so that each queue's keys share one slot. */
  QUEUE_PREFIX: z
    .string()
    .regex(/^(\{[A-Za-z0-9_-]{1,64}\}|[A-Za-z0-9_-]{1,64})$/, 'letters, digits, _ and -, optionally in braces ({ledger})')
    .default('ledger'),
  /** Where the API listens: loopback unless told otherwise (the container image sets 0.0.0.0). */
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PORT: intFromEnv(3000, 0, 65535),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  // The Bearer parser reads only these characters: any other key would boot but never sign in.
  ADMIN_API_KEY: z.string().min(16, 'must be at least 16 characters').regex(API_KEY_TEXT, API_KEY_TEXT_MESSAGE).optional(),
  USER_MARKUP: multiplier('USER_MARKUP', '1.3'),
  PAYOUT_STANDARD: multiplier('PAYOUT_STANDARD', '1.1'),
  PAYOUT_PREMIUM: multiplier('PAYOUT_PREMIUM', '1.2'),
  BODY_LIMIT_BYTES: intFromEnv(2 * 1024 * 1024, 1024, 64 * 1024 * 1024),
  STREAM_BODY_LIMIT_BYTES: intFromEnv(16 * 1024 * 1024, 1024, 256 * 1024 * 1024),
  EVENT_OCCURRED_AT_FUTURE_SKEW_MS: intFromEnv(5 * 60_000, 0, 24 * 3600_000),
  HOLD_DEFAULT_TTL_SECONDS: intFromEnv(900, 1, 7 * 24 * 3600),
  HOLD_MAX_TTL_SECONDS: intFromEnv(24 * 3600, 1, 30 * 24 * 3600),
  // Ingestion rate limit per API key (token bucket; see src/modules/auth/rate-limiter.ts),
  // counted in events: a batch costs one token per event. The defaults (100,000 events/s per key,
  // bursts of 200,000) sit far above the 25,000 events/s benchmark target: they stop a runaway
  // or stolen key, not normal traffic.
  RATE_LIMIT_PER_MINUTE: intFromEnv(6_000_000, 1, 1_000_000_000),
  // At least one full batch (1000 events), or a full batch could never pass.
  RATE_LIMIT_BURST: intFromEnv(200_000, 1000, 1_000_000_000),
  AUTH_FAILURES_PER_MINUTE: intFromEnv(60, 1, 1_000_000),
  /** Proxy hops in front of the API whose X-Forwarded-For is trusted (0: none). Behind a load
   * balancer set it, or every client shares the balancer's address for the auth failure limiter. */
  TRUST_PROXY_HOPS: intFromEnv(0, 0, 10),
  RPC_URL: z.string().url().optional(),
  CHAIN_ID: z.coerce.number().int().positive().optional(),
  USDC_ADDRESS: address,
  PAYOUT_CONTRACT_ADDRESS: address,
  PAYOUT_PRIVATE_KEY: privateKey,
  PAYOUT_PRIVATE_KEY_FILE: optionalText,
  /** Payout addresses never paid nor accepted (src/modules/payout-safety/payout-denylist.ts: one a line, # comments). */
  PAYOUT_DENYLIST_FILE: optionalText,
  SETTLEMENT_CRON: z.string().default('0 0 * * *'),
  SETTLEMENT_MIN_PAYOUT_USD: usdAmount('10'),
  SETTLEMENT_APPROVAL_THRESHOLD_USD: usdAmount('10000'),
  SETTLEMENT_LINE_MAX_USD: usdAmount('100000'),
  SETTLEMENT_TOTAL_MAX_USD: usdAmount('1000000'),
  SETTLEMENT_CONFIRMATIONS: intFromEnv(3, 1, 100),
  /** Depth at which a mined payout can no longer be reorganised away; until then it is re-verified
   * and, if a reorg removed it, sent again (same bytes). Taken as at least SETTLEMENT_CONFIRMATIONS.
   * 64 blocks is two epochs on Ethereum (its finality); use the chain's own finality depth. */
  SETTLEMENT_FINALITY_BLOCKS: intFromEnv(64, 1, 10_000),
  SETTLEMENT_RECIPIENTS_PER_TX: intFromEnv(200, 1, 500),
  SETTLEMENT_SCHEDULER_ENABLED: booleanFromEnv(true),
  WORKER_CONCURRENCY: intFromEnv(4, 1, 64),
  /** Usage-writer transactions in flight per process (group commit); more only helps with many cores. */
  USAGE_WRITER_TX_CONCURRENCY: intFromEnv(2, 1, 16),
  /**
   * Largest group commit without holds written as ONE statement (single-event load); larger ones
   * go statement by statement. 0: always statement by statement (the differential spec runs the
   * same groups through both paths and compares what they wrote).
   */
  USAGE_ONE_STATEMENT_EVENTS_MAX: intFromEnv(64, 0, 2000),
  /** Test hook: the payout worker exits right after its first broadcast (ignored in production). */
  PAYOUT_CRASH_AFTER_BROADCAST: booleanFromEnv(false),
  // Longest earnings query range, in whole UTC days.
  EARNINGS_RANGE_DAYS_MAX: intFromEnv(366, 1, 3660),
  /** Directory of the built web console (index.html, assets/); default web/dist of this checkout. */
  CONSOLE_DIR: optionalText,
  /** The web console links a payout's transaction here: `{tx_hash}` is replaced, else the hash is appended. */
  CHAIN_EXPLORER_TX_URL: z
    .string()
    .url()
    .refine((url) => /^https?:\/\//.test(url), 'must be an http(s) URL')
    .optional(),
  /** Threshold of the user.balance_low webhook: fired once each time a balance crosses below it. */
  USER_LOW_BALANCE_USD: usdAmount('1'),
  /** Days after occurred_at before earnings become payable (0: at once). */
  PAYOUT_MATURITY_DAYS: intFromEnv(0, 0, 3650),
  /** How long a failing webhook delivery is retried (from the event's creation), then `failed`. */
  WEBHOOK_RETRY_HOURS: intFromEnv(24, 1, 24 * 30),
  /** First retry delay of a failing webhook delivery; each next one is about 3x longer (capped). */
  WEBHOOK_RETRY_BASE_MS: intFromEnv(5_000, 10, 3_600_000),
  /** Lets webhook URLs reach private, loopback and link-local addresses (tests, local use only). */
  WEBHOOK_ALLOW_PRIVATE: booleanFromEnv(false),
  /** Usage jobs on the queue must carry a gateway signature (src/queue/signed-usage-events.producer.ts). */
  USAGE_QUEUE_SIGNED_ONLY: booleanFromEnv(false),
  // Contributor trust (api.md "Contributor trust", src/modules/payout-safety, src/modules/usage-audit).
  /** required: a settlement line to a payout address not proven by a signature fails (address_unproven). */
  PAYOUT_ADDRESS_PROOF: z.enum(['optional', 'required']).default('optional'),
  /** Hours after a payout address *changes* during which the new address is paid nothing (0: off). */
  PAYOUT_ADDRESS_COOLDOWN_HOURS: intFromEnv(24, 0, 24 * 365),
  /** false: the stream route hands nothing to the usage audit (the bench's audit-off API; nothing is flagged). */
  USAGE_AUDIT_ENABLED: booleanFromEnv(true),
  /** true: a contributor the usage audit flagged is paid nothing (under_review) until reviewed. */
  USAGE_AUDIT_HOLD: booleanFromEnv(false),
  /** Audited events of a model a contributor needs before the audit may flag it. */
  USAGE_AUDIT_MIN_EVENTS: intFromEnv(50, 5, 1_000_000),
  /** How far (a fraction: 0.10 = 10%) a contributor's median ratio must exceed its model's to flag. */
  USAGE_AUDIT_THRESHOLD: z.coerce.number().min(0.01).max(10).default(0.1),
  /** ...and by more than this many scaled MADs of the model's other contributors' medians (the noise). */
  USAGE_AUDIT_MAD_MULTIPLE: z.coerce.number().min(0).max(100).default(4),
  /** Provider prompt tokens above the gateway's own count by more than this fraction are audited like inflated completions. */
  USAGE_AUDIT_PROMPT_TOLERANCE: z.coerce.number().min(0).max(10).default(0.05),
  /** How often the worker runs the audit (api.md: at least once a minute). */
  USAGE_AUDIT_INTERVAL_SECONDS: intFromEnv(60, 1, 60),
  /**
   * LiteLLM push (api.md "Integrations (gateway)"): the payload paths tried in order for the
   * user, comma-separated dotted paths into a StandardLoggingPayload.
   */
  LITELLM_USER_FIELDS: z
    .string()
    .default('metadata.user_api_key_user_id,metadata.user_api_key_team_id,metadata.user_api_key_hash')
    .transform((text, ctx) => {
      const paths = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
      const bad = paths.find((p) => !/^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+){0,7}$/.test(p));
      if (paths.length === 0 || paths.length > LITELLM_USER_FIELDS_MAX || bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `LITELLM_USER_FIELDS: 1 to ${LITELLM_USER_FIELDS_MAX} comma-separated dotted paths such as metadata.user_api_key_user_id${bad ? ` (bad: ${bad.slice(0, 60)})` : ''}` });
        return z.NEVER;
      }
      return paths;
    }),
  /** Body limit of POST /v1/integrations/litellm: LiteLLM batches carry whole prompts and responses. */
  LITELLM_BODY_LIMIT_BYTES: intFromEnv(64 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
  /** Most payloads one LiteLLM push may hold (more is a 413 naming it); they are written a group at a time. */
  LITELLM_MAX_PAYLOADS: intFromEnv(20_000, 1, 1_000_000),
  /** LiteLLM's own Postgres (read-only): the worker backfills from its "LiteLLM_SpendLogs". None: no pull. */
  LITELLM_DATABASE_URL: z.string().url().optional(),
  LITELLM_BACKFILL_SECONDS: intFromEnv(60, 1, 24 * 3600),
  /** Each run re-reads this far behind the checkpoint: LiteLLM writes spend rows late (batched). */
  LITELLM_BACKFILL_OVERLAP_SECONDS: intFromEnv(600, 0, 7 * 24 * 3600),
  /** Spend rows committed up to this long after their "endTime" are still billed (the late sweep). */
  LITELLM_BACKFILL_LATE_SECONDS: intFromEnv(21_600, 0, 7 * 24 * 3600),
  /** Where the first backfill starts; default 24 hours before the worker started. */
  LITELLM_BACKFILL_FROM: timestampSchema.optional(),
});

/**
 * Variables an operator writes in USD (operations.md names them `_USD`) that are parsed to
 * atto-USD: in the parsed config the key says the unit it holds.
 */
const ATTO_KEYS_OF_USD_VARIABLES = {
  SETTLEMENT_MIN_PAYOUT_USD: 'SETTLEMENT_MIN_PAYOUT_ATTO',
  SETTLEMENT_APPROVAL_THRESHOLD_USD: 'SETTLEMENT_APPROVAL_THRESHOLD_ATTO',
  SETTLEMENT_LINE_MAX_USD: 'SETTLEMENT_LINE_MAX_ATTO',
  SETTLEMENT_TOTAL_MAX_USD: 'SETTLEMENT_TOTAL_MAX_ATTO',
} as const;
type UsdVariable = keyof typeof ATTO_KEYS_OF_USD_VARIABLES;

export type Env = Omit<z.output<typeof envSchema>, UsdVariable> & { [K in UsdVariable as (typeof ATTO_KEYS_OF_USD_VARIABLES)[K]]: bigint };

function withAttoKeys(parsed: z.output<typeof envSchema>): Env {
  const env: Record<string, unknown> = { ...parsed };
  for (const [variable, key] of Object.entries(ATTO_KEYS_OF_USD_VARIABLES)) {
    env[key] = env[variable];
    delete env[variable];
  }
  return env as Env;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/**
 * Every payout multiplier must be positive and at most the user markup: a payout above the charge
 * is a negative margin on every event of that tier (USER_MARKUP=1.1 booted and did that to premium
 * events), and a zero markup or payout bills or pays nothing. Equal is allowed (zero margin).
 */
function multiplierProblems(env: Pick<Env, 'USER_MARKUP' | 'PAYOUT_STANDARD' | 'PAYOUT_PREMIUM'>): string[] {
  const problems: string[] = [];
  if (env.USER_MARKUP.numerator <= 0n) problems.push(`USER_MARKUP: must be positive (got ${env.USER_MARKUP.text})`);
  for (const name of ['PAYOUT_STANDARD', 'PAYOUT_PREMIUM'] as const) {
    const payout = env[name];
    if (payout.numerator <= 0n) problems.push(`${name}: must be positive (got ${payout.text})`);
    // Same denominator (10^MULTIPLIER_DECIMALS_MAX), so numerators compare as the values do.
    else if (payout.numerator * env.USER_MARKUP.denominator > env.USER_MARKUP.numerator * payout.denominator) {
      problems.push(`${name}: must not exceed USER_MARKUP (${payout.text} > ${env.USER_MARKUP.text}: a negative margin)`);
    }
  }
  return problems;
}

/** Parses the environment; throws ConfigError naming every bad variable. */
export function parseEnv(source: NodeJS.ProcessEnv): Env {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined && value !== ''));
  const result = envSchema.safeParse(cleaned);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.') || '(env)'}: ${issue.message}`);
    throw new ConfigError(`invalid environment: ${problems.join('; ')}`);
  }
  const env = withAttoKeys(result.data);
  const multipliers = multiplierProblems(env);
  if (multipliers.length > 0) throw new ConfigError(`invalid environment: ${multipliers.join('; ')}`);
  if (!env.PAYOUT_PRIVATE_KEY && env.PAYOUT_PRIVATE_KEY_FILE) {
    const key = readFileSync(env.PAYOUT_PRIVATE_KEY_FILE, 'utf8').trim();
    const parsed = envSchema.shape.PAYOUT_PRIVATE_KEY.safeParse(key);
    if (!parsed.success) throw new ConfigError('invalid environment: PAYOUT_PRIVATE_KEY_FILE: file does not hold a 0x-prefixed 32-byte hex key');
    env.PAYOUT_PRIVATE_KEY = parsed.data;
  }
  if (env.REDIS_CLUSTER_NODES && !env.QUEUE_PREFIX.startsWith('{')) {
    throw new ConfigError(`invalid environment: QUEUE_PREFIX: on a Redis Cluster it must be a hash tag such as {${env.QUEUE_PREFIX}}`);
  }
  if (env.NODE_ENV === 'production' && !env.ADMIN_API_KEY) {
    throw new ConfigError('invalid environment: ADMIN_API_KEY: required in production');
  }
  return env;
}

/** Chain settings are all-or-nothing: settlement is disabled (and says so) without them. */
export function chainSettings(env: Env) {
  if (!env.RPC_URL || !env.USDC_ADDRESS || !env.PAYOUT_CONTRACT_ADDRESS || !env.PAYOUT_PRIVATE_KEY) return null;
  return {
    rpcUrl: env.RPC_URL,
    chainId: env.CHAIN_ID,
    usdcAddress: env.USDC_ADDRESS as `0x${string}`,
    payoutContractAddress: env.PAYOUT_CONTRACT_ADDRESS as `0x${string}`,
    payoutPrivateKey: env.PAYOUT_PRIVATE_KEY as `0x${string}`,
  };
}
