// Gauges of the state an operator alerts on (docs/observability/), computed by the API at scrape
// time from Postgres, Redis and the chain, each source cached for a few seconds so that several
// Prometheus servers (or a fast scrape interval) cost one read per interval (cached-reading.ts:
// one read in flight per source at most, however slow).
import { Inject, Injectable, Logger, Module, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { Gauge } from 'prom-client';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { createRedis, type RedisClient } from '../../queue/redis-connection.js';
import { QUEUE_EARNINGS, QUEUE_HISTORY, QUEUE_HOLDS, QUEUE_SETTLEMENT, QUEUE_USAGE_EVENTS, QUEUE_USAGE_EVENTS_DEAD, QUEUE_WEBHOOK_DISPATCH, QUEUE_WEBHOOKS } from '../../queue/queue-names.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { LedgerCheckService } from '../ledger/ledger-check.service.js';
import { PayoutChainModule } from '../chain/payout-chain.module.js';
import { PAYOUT_CHAIN, type PayoutChainHandle } from '../chain/payout-chain.provider.js';
import { MetricsService } from '../health/metrics.service.js';
import { CachedReading } from './cached-reading.js';
import { OperationsMetricsRepository, type StatusCount } from './operations-metrics.repository.js';

/** How long one reading of Postgres / Redis / the chain serves scrapes. */
export const STATE_CACHE_MS = 5_000;
/** The ledger check reads every entry since the newest checkpoint: at most once a minute after the previous one ended. */
export const LEDGER_CHECK_CACHE_MS = 60_000;
const QUEUES = [QUEUE_USAGE_EVENTS, QUEUE_USAGE_EVENTS_DEAD, QUEUE_HOLDS, QUEUE_SETTLEMENT, QUEUE_EARNINGS, QUEUE_WEBHOOKS, QUEUE_WEBHOOK_DISPATCH, QUEUE_HISTORY] as const;
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'] as const;
const MICRO_USDC_PER_USDC = 1_000_000;
/** A source that does not answer by then (Redis unreachable: its commands queue forever) is left out of the scrape. */
export const SOURCE_READ_TIMEOUT_MS = 2_000;
const QUEUE_CLOSE_TIMEOUT_MS = 1_000;

/** Rejects when `promise` has not settled within `ms` (the timer never keeps the process alive). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
const WEI_PER_GWEI = 1_000_000_000n;

function setCounts(gauge: Gauge<'status'>, counts: StatusCount[]): void {
  gauge.reset();
  for (const c of counts) gauge.set({ status: c.status }, c.count);
}

@Injectable()
export class OperationsMetrics implements OnModuleDestroy {
  private readonly logger = new Logger('OperationsMetrics');
  private redis: RedisClient | null = null;
  private queues: Queue[] = [];

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: OperationsMetricsRepository,
    private readonly ledgerChecks: LedgerCheckService,
    @Inject(PAYOUT_CHAIN) private readonly chain: PayoutChainHandle,
    metrics: MetricsService,
  ) {
    const registers = [metrics.registry];
    const failed = (what: string, error: unknown) => {
      // A scrape must still answer: the gauge keeps no value for this source, and says so.
      this.logger.warn(`metrics: ${what} could not be read: ${(error as Error).message}`);
      return null;
    };
    // The scrape waits SOURCE_READ_TIMEOUT_MS at most; a read still running then is not abandoned
    // but kept in flight (CachedReading), and the next scrapes wait for that same one.
    const quietly = <T>(what: string, ttlMs: number, read: () => Promise<T>) => {
      const cached = new CachedReading(ttlMs, read);
      return { get: () => within(cached.get(), SOURCE_READ_TIMEOUT_MS, what).catch((error: unknown) => failed(what, error)) };
    };
    const postgres = quietly('postgres', STATE_CACHE_MS, async () => {
      const [settlements, lines, txs, endpoints, deliveries, submittingAge] = await Promise.all([
        repository.settlementsByStatus(),
        repository.settlementLinesByStatus(),
        repository.payoutTxsByStatus(),
        repository.webhookEndpointsByStatus(),
        repository.webhookDeliveriesByStatus(),
        repository.oldestSubmittingAgeSeconds(),
      ]);
      return { settlements, lines, txs, endpoints, deliveries, submittingAge };
    });
    const byStatus = (name: string, help: string, pick: (s: NonNullable<Awaited<ReturnType<typeof postgres.get>>>) => StatusCount[]) =>
      new Gauge({
        name,
        help,
        labelNames: ['status'] as const,
        registers,
        async collect() {
          const state = await postgres.get();
          if (state) setCounts(this, pick(state));
        },
      });
    byStatus('settlements', 'Settlements by status (api.md statuses)', (s) => s.settlements);
    byStatus('settlement_lines', 'Settlement lines by status', (s) => s.lines);
    byStatus('payout_txs', 'Payout transactions (settlement_txs) by status', (s) => s.txs);
    byStatus('webhook_endpoints', 'Webhook endpoints by status (active, disabled)', (s) => s.endpoints);
    byStatus('webhook_deliveries_recent', 'Webhook deliveries created in the last 24 hours, by status', (s) => s.deliveries);
    new Gauge({
      name: 'settlement_submitting_oldest_age_seconds',
      help: 'How long the oldest settlement has been in submitting (0: none)',
      registers,
      async collect() {
        const state = await postgres.get();
        if (state) this.set(state.submittingAge);
      },
    });

    const queueCounts = quietly('redis', STATE_CACHE_MS, () => Promise.all(this.openQueues().map(async (q) => ({ queue: q.name, counts: await q.getJobCounts(...QUEUE_STATES) }))));
    new Gauge({
      name: 'queue_jobs',
      help: 'BullMQ jobs by queue and state (usage-events-dead waiting: the dead letters)',
      labelNames: ['queue', 'state'] as const,
      registers,
      async collect() {
        const all = await queueCounts.get();
        if (!all) return;
        this.reset();
        for (const { queue, counts } of all) for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
      },
    });

    // Never the full check (runFromCheckpoint): without a checkpoint the gauge is unknown (NaN).
    const ledger = quietly('ledger check', LEDGER_CHECK_CACHE_MS, async () => ({ check: await ledgerChecks.runFromCheckpoint() }));
    new Gauge({
      name: 'ledger_check_ok',
      help: 'The ledger check (GET /v1/admin/ledger/check, from the newest checkpoint) passed: 1, failed: 0 (also a failing rollup check before the first checkpoint), unknown (no checkpoint yet, or no answer in time): NaN',
      registers,
      async collect() {
        const read = await ledger.get();
        // A read that failed or is still running past the scrape's wait is unknown, not the last value.
        this.set(read && read.check !== null ? (read.check ? 1 : 0) : Number.NaN);
      },
    });

    const wallet = quietly('hot wallet', STATE_CACHE_MS, async () => (chain.client ? chain.client.readHotWallet() : null));
    new Gauge({
      name: 'hot_wallet_usdc',
      help: 'USDC held by the hot wallet (settlement configured only)',
      registers,
      async collect() {
        const w = await wallet.get();
        // micro-USDC is an integer; the float is only for Prometheus (exact below 2^53 micro).
        if (w) this.set(Number(w.usdcMicroUsdc) / MICRO_USDC_PER_USDC);
      },
    });
    new Gauge({
      name: 'hot_wallet_native_gwei',
      help: 'Native gas token held by the hot wallet, in gwei (settlement configured only)',
      registers,
      async collect() {
        const w = await wallet.get();
        if (w) this.set(Number(w.nativeWei / WEI_PER_GWEI));
      },
    });
  }

  private openQueues(): Queue[] {
    if (this.queues.length === 0) {
      this.redis = createRedis(this.config, 'producer');
      this.redis.on('error', () => undefined); // surfaced by the failing read and /health/ready
      this.queues = QUEUES.map((name) => new Queue(name, { connection: this.redis!, prefix: this.config.QUEUE_PREFIX }));
    }
    return this.queues;
  }

  async onModuleDestroy(): Promise<void> {
    // Closing a queue waits for its connection: with Redis unreachable it would never end.
    await Promise.all(this.queues.map((q) => within(q.close(), QUEUE_CLOSE_TIMEOUT_MS, 'queue close').catch(() => undefined)));
    this.redis?.disconnect();
  }
}

/** API only: the worker has no /metrics. */
@Module({ imports: [LedgerModule, PayoutChainModule], providers: [OperationsMetricsRepository, OperationsMetrics] })
export class OperationsMetricsModule {}
