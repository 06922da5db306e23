// The only code that touches usage_audit_samples, usage_audit_stats and usage_audit_reviews.
import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import type { RatioGroup } from './usage-audit-stats.js';
import type { CountedSample } from './usage-audit-counter.js';

export interface StoredVerdict {
  contributorId: string;
  model: string;
  events: number;
  medianRatio: string;
  modelMedianRatio: string | null;
  flagged: boolean;
  flaggedSince: Date | null;
}

export interface VerdictWrite {
  contributorId: string;
  model: string;
  events: number;
  medianRatio: number;
  modelMedianRatio: number | null;
  flagged: boolean;
  flaggedSince: Date | null;
}

@Injectable()
export class UsageAuditRepository {
  constructor(private readonly db: DatabaseService) {}

  transaction<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    return this.db.transaction(fn);
  }

  /** One statement per batch; a sample counted twice (a retried job) is kept once. */
  async insertSamples(samples: readonly CountedSample[]): Promise<number> {
    if (samples.length === 0) return 0;
    const result = await this.db.pool.query(
      `INSERT INTO usage_audit_samples (event_id, contributor_id, model, reported_tokens, counted_tokens, counter, occurred_at)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::timestamptz[])
       ON CONFLICT (event_id) DO NOTHING`,
      [
        samples.map((s) => s.eventId),
        samples.map((s) => s.contributorId),
        samples.map((s) => s.model),
        samples.map((s) => s.reportedTokens),
        samples.map((s) => s.countedTokens),
        samples.map((s) => s.counter),
        samples.map((s) => s.occurredAt.toISOString()),
      ],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Per contributor and model: the newest `windowEvents` samples audited after the contributor's
   * last "clear" review, their count and median ratio (Postgres computes the median).
   */
  async ratioGroups(runner: SqlRunner, windowEvents: number): Promise<RatioGroup[]> {
    const result = await runner.query<{ contributor_id: string; model: string; events: number; median_ratio: number }>(
      `WITH cleared AS (
         SELECT contributor_id, max(created_at) AS cleared_at FROM usage_audit_reviews WHERE decision = 'clear' GROUP BY contributor_id
       ), ranked AS (
         SELECT s.contributor_id, s.model, s.reported_tokens::float8 / s.counted_tokens AS ratio,
                row_number() OVER (PARTITION BY s.contributor_id, s.model ORDER BY s.audited_at DESC, s.event_id) AS rank
         FROM usage_audit_samples s LEFT JOIN cleared c ON c.contributor_id = s.contributor_id
         WHERE c.cleared_at IS NULL OR s.audited_at > c.cleared_at
       )
       SELECT contributor_id, model, count(*)::int AS events, percentile_cont(0.5) WITHIN GROUP (ORDER BY ratio) AS median_ratio
       FROM ranked WHERE rank <= $1 GROUP BY contributor_id, model`,
      [windowEvents],
    );
    return result.rows.map((r) => ({ contributorId: r.contributor_id, model: r.model, events: r.events, medianRatio: Number(r.median_ratio) }));
  }

  /** The stored verdicts, locked until the caller's transaction ends (one audit run at a time). */
  async lockVerdicts(client: SqlClient): Promise<Map<string, StoredVerdict>> {
    await client.query(`SELECT pg_advisory_xact_lock(hashtext('usage_audit_run'))`);
    const rows = await this.listWith(client);
    return new Map(rows.map((r) => [`${r.contributorId}\u0000${r.model}`, r]));
  }

  async writeVerdicts(client: SqlClient, verdicts: readonly VerdictWrite[], at: Date): Promise<void> {
    if (verdicts.length === 0) return;
    await client.query(
      `INSERT INTO usage_audit_stats (contributor_id, model, events, median_ratio, model_median_ratio, flagged, flagged_since, updated_at)
       SELECT x.c, x.m, x.e, round(x.r::numeric, 6), round(x.mm::numeric, 6), x.f, x.fs, $8
       FROM unnest($1::text[], $2::text[], $3::int[], $4::float8[], $5::float8[], $6::boolean[], $7::timestamptz[]) AS x(c, m, e, r, mm, f, fs)
       ON CONFLICT (contributor_id, model) DO UPDATE SET events = EXCLUDED.events, median_ratio = EXCLUDED.median_ratio,
         model_median_ratio = EXCLUDED.model_median_ratio, flagged = EXCLUDED.flagged, flagged_since = EXCLUDED.flagged_since, updated_at = EXCLUDED.updated_at`,
      [
        verdicts.map((v) => v.contributorId),
        verdicts.map((v) => v.model),
        verdicts.map((v) => v.events),
        verdicts.map((v) => v.medianRatio),
        verdicts.map((v) => v.modelMedianRatio),
        verdicts.map((v) => v.flagged),
        verdicts.map((v) => v.flaggedSince?.toISOString() ?? null),
        at,
      ],
    );
  }

  /** A review: recorded, and (clear) the contributor's verdicts reset until the next run. */
  async insertReview(client: SqlClient, review: { contributorId: string; decision: 'clear' | 'suspend'; reason: string; reviewedBy: string | null; at: Date }): Promise<void> {
    await client.query('INSERT INTO usage_audit_reviews (contributor_id, decision, reason, reviewed_by, created_at) VALUES ($1, $2, $3, $4, $5)', [
      review.contributorId,
      review.decision,
      review.reason,
      review.reviewedBy,
      review.at,
    ]);
    if (review.decision === 'clear') {
      await client.query('UPDATE usage_audit_stats SET flagged = false, flagged_since = NULL, events = 0, updated_at = $2 WHERE contributor_id = $1', [review.contributorId, review.at]);
    }
  }

  list(): Promise<StoredVerdict[]> {
    return this.listWith(this.db.pool);
  }

  private async listWith(runner: SqlRunner): Promise<StoredVerdict[]> {
    const result = await runner.query<{
      contributor_id: string;
      model: string;
      events: number;
      median_ratio: string;
      model_median_ratio: string | null;
      flagged: boolean;
      flagged_since: Date | null;
    }>(`SELECT contributor_id, model, events, median_ratio::text, model_median_ratio::text, flagged, flagged_since FROM usage_audit_stats ORDER BY model, contributor_id`);
    return result.rows.map((r) => ({
      contributorId: r.contributor_id,
      model: r.model,
      events: r.events,
      medianRatio: r.median_ratio,
      modelMedianRatio: r.model_median_ratio,
      flagged: r.flagged,
      flaggedSince: r.flagged_since,
    }));
  }
}
