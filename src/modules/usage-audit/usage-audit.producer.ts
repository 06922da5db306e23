// Hands billed streams to the usage audit off the request path. The stream route calls offer():
// O(1) (an array push); a timer sends what gathered as BullMQ jobs of up to
// USAGE_AUDIT_SAMPLES_PER_JOB_MAX streams, and the worker counts their tokens. The audit is a
// statistic, so this is best effort: a sample lost to a full buffer or a Redis outage only delays
// a verdict, and never touches what anyone is charged or paid.
import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { jobOptions, USAGE_AUDIT_SAMPLES_PER_JOB_MAX, type UsageAuditSample } from '../../queue/jobs.js';
import { JOB_USAGE_AUDIT_COUNT, QUEUE_USAGE_AUDIT } from '../../queue/queue-names.js';
import { createRedis, type RedisClient } from '../../queue/redis-connection.js';

/** How long samples gather before they are sent (one Redis round trip per batch, not per stream). */
export const AUDIT_FLUSH_DELAY_MS = 50;
/** Streams waiting in memory at most; beyond, new ones are not audited (counted in `dropped`). */
export const AUDIT_BUFFER_STREAMS_MAX = 20_000;
/** Characters of completion text waiting in memory at most (about 2 bytes each in V8). */
export const AUDIT_BUFFER_CHARS_MAX = 32 * 1024 * 1024;
/** A stream with more completion text than this is not audited (the job would be too large). */
export const AUDIT_STREAM_CHARS_MAX = 1024 * 1024;

@Injectable()
export class UsageAuditProducer implements OnModuleDestroy {
  private readonly logger = new Logger('UsageAudit');
  private queue: Queue | null = null;
  private connection: RedisClient | null = null;
  private buffer: UsageAuditSample[] = [];
  private bufferedChars = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  /** Streams not audited because a limit was reached or Redis refused them. */
  dropped = 0;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** O(1) on the request path: the sample waits in memory for the next flush. */
  offer(sample: UsageAuditSample): void {
    let chars = 0;
    for (const text of sample.texts) chars += text.length;
    if (chars > AUDIT_STREAM_CHARS_MAX || this.buffer.length >= AUDIT_BUFFER_STREAMS_MAX || this.bufferedChars + chars > AUDIT_BUFFER_CHARS_MAX) {
      this.dropped += 1;
      return;
    }
    this.buffer.push(sample);
    this.bufferedChars += chars;
    if (this.timer === null) {
      this.timer = setTimeout(() => void this.flush(), AUDIT_FLUSH_DELAY_MS);
      this.timer.unref();
    }
  }

  /** Sends everything buffered now (also at shutdown, and from tests). */
  flush(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const samples = this.buffer;
    this.buffer = [];
    this.bufferedChars = 0;
    this.flushing = this.flushing.then(() => this.send(samples));
    return this.flushing;
  }

  private async send(samples: UsageAuditSample[]): Promise<void> {
    if (samples.length === 0) return;
    const jobs = [];
    for (let i = 0; i < samples.length; i += USAGE_AUDIT_SAMPLES_PER_JOB_MAX) {
      const data = { samples: samples.slice(i, i + USAGE_AUDIT_SAMPLES_PER_JOB_MAX) };
      jobs.push({ name: JOB_USAGE_AUDIT_COUNT, data, opts: jobOptions(JOB_USAGE_AUDIT_COUNT, data) });
    }
    try {
      await this.get().addBulk(jobs);
    } catch (error) {
      this.dropped += samples.length;
      this.logger.warn(`${samples.length} streams not audited (Redis: ${(error as Error).message})`);
    }
  }

  private get(): Queue {
    if (!this.queue) {
      this.connection = createRedis(this.config, 'producer');
      this.connection.on('error', () => undefined); // surfaced by the failing add, and /health/ready
      this.queue = new Queue(QUEUE_USAGE_AUDIT, { connection: this.connection, prefix: this.config.QUEUE_PREFIX });
    }
    return this.queue;
  }

  async onModuleDestroy(): Promise<void> {
    await this.flush().catch(() => undefined);
    await this.queue?.close().catch(() => undefined);
    this.connection?.disconnect();
  }
}
