// The only code that touches usage_audit_samples, usage_audit_stats and usage_audit_reviews.
import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import type { AuditRatio, AuditRow } from './usage-audit-stats.js';
import type { CountedSample } from './usage-audit-counter.js';

/** A ratio other than completion as stored: its events, median and the model's median (decimal text). */
export interface StoredRatio {
  events: number;
  medianRatio: string | null;
  modelMedianRatio: string | null;
}

export interface StoredVerdict {
  contributorId: string;
  model: string;
  /** The completion ratio's (api.md's original fields). */
  events: number;
  medianRatio: string;
  modelMedianRatio: string | null;
  prompt: StoredRatio;
  reasoning: StoredRatio;
  flagged: boolean;
  flaggedRatios: AuditRatio[];
  flaggedSince: Date | null;
}

interface RatioWrite {
  events: number;
  medianRatio: number | null;
  modelMedianRatio: number | null;
}

export interface VerdictWrite {
  contributorId: string;
  model: string;
  events: number;
  medianRatio: number;
  modelMedianRatio: number | null;
  prompt: RatioWrite;
  reasoning: RatioWrite;
  flagged: boolean;
  flaggedRatios: AuditRatio[];
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
      `INSERT INTO usage_audit_samples (event_id, contributor_id, model, reported_tokens, counted_tokens, counter, occurred_at, reported_prompt_tokens, gateway_prompt_tokens, reasoning_tokens)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::text[], $7::timestamptz[], $8::int[], $9::int[], $10::int[])
       ON CONFLICT (event_id) DO NOTHING`,
      [
        samples.map((s) => s.eventId),
        samples.map((s) => s.contributorId),
        samples.map((s) => s.model),
        samples.map((s) => s.reportedTokens),
        samples.map((s) => s.countedTokens),
        samples.map((s) => s.counter),
        samples.map((s) => s.occurredAt.toISOString()),
        samples.map((s) => s.reportedPromptTokens),
        samples.map((s) => s.gatewayPromptTokens),
        samples.map((s) => s.reasoningTokens),
      ],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Per contributor and model: the newest `windowEvents` samples audited after the contributor's
   * last "clear" review, and per ratio their count, median and MAD (Postgres computes them;
   * percentile_cont skips the samples without that ratio).
   */
  async ratioRows(runner: SqlRunner, windowEvents: number): Promise<AuditRow[]> {
    const result = await runner.query<{
      contributor_id: string;
      model: string;
      events: number;
      median_ratio: number;
      prompt_events: number;
      prompt_median_ratio: number | null;
      reasoning_events: number;
      reasoning_median_ratio: number | null;
      mad_ratio: number | null;
      prompt_mad_ratio: number | null;
      reasoning_mad_ratio: number | null;
    }>(
      `WITH cleared AS (
         SELECT contributor_id, max(created_at) AS cleared_at FROM usage_audit_reviews WHERE decision = 'clear' GROUP BY contributor_id
       ), ranked AS (
         SELECT s.contributor_id, s.model, s.reported_tokens::float8 / s.counted_tokens AS ratio,
                s.reported_prompt_tokens::float8 / s.gateway_prompt_tokens AS prompt_ratio,
                s.reasoning_tokens::float8 / s.counted_tokens AS reasoning_ratio,
                row_number() OVER (PARTITION BY s.contributor_id, s.model ORDER BY s.audited_at DESC, s.event_id) AS rank
         FROM usage_audit_samples s LEFT JOIN cleared c ON c.contributor_id = s.contributor_id
         WHERE c.cleared_at IS NULL OR s.audited_at > c.cleared_at
       ), windowed AS (
         SELECT * FROM ranked WHERE rank <= $1
       ), medians AS (
         SELECT contributor_id, model, count(*)::int AS events, percentile_cont(0.5) WITHIN GROUP (ORDER BY ratio) AS median_ratio,
                count(prompt_ratio)::int AS prompt_events, percentile_cont(0.5) WITHIN GROUP (ORDER BY prompt_ratio) AS prompt_median_ratio,
                count(reasoning_ratio)::int AS reasoning_events, percentile_cont(0.5) WITHIN GROUP (ORDER BY reasoning_ratio) AS reasoning_median_ratio
         FROM windowed GROUP BY contributor_id, model
       )
       SELECT m.*,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(w.ratio - m.median_ratio)) AS mad_ratio,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(w.prompt_ratio - m.prompt_median_ratio)) AS prompt_mad_ratio,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(w.reasoning_ratio - m.reasoning_median_ratio)) AS reasoning_mad_ratio
       FROM medians m JOIN windowed w ON w.contributor_id = m.contributor_id AND w.model = m.model
       GROUP BY m.contributor_id, m.model, m.events, m.median_ratio, m.prompt_events, m.prompt_median_ratio, m.reasoning_events, m.reasoning_median_ratio`,
      [windowEvents],
    );
    const ratio = (events: number, median: number | null, madRatio: number | null) =>
      events > 0 && median !== null ? { events, medianRatio: Number(median), madRatio: Number(madRatio ?? 0) } : undefined;
    return result.rows.map((r) => ({
      contributorId: r.contributor_id,
      model: r.model,
      ratios: {
        completion: ratio(r.events, r.median_ratio, r.mad_ratio),
        prompt: ratio(r.prompt_events, r.prompt_median_ratio, r.prompt_mad_ratio),
        reasoning: ratio(r.reasoning_events, r.reasoning_median_ratio, r.reasoning_mad_ratio),
      },
    }));
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
      `INSERT INTO usage_audit_stats (contributor_id, model, events, median_ratio, model_median_ratio, flagged, flagged_since, updated_at,
         prompt_events, prompt_median_ratio, prompt_model_median_ratio, reasoning_events, reasoning_median_ratio, reasoning_model_median_ratio, flagged_ratios)
       SELECT x.c, x.m, x.e, round(x.r::numeric, 6), round(x.mm::numeric, 6), x.f, x.fs, $8,
              x.pe, round(x.pr::numeric, 6), round(x.pmm::numeric, 6), x.re, round(x.rr::numeric, 6), round(x.rmm::numeric, 6),
              CASE WHEN x.fr = '' THEN '{}'::text[] ELSE string_to_array(x.fr, ',') END
       FROM unnest($1::text[], $2::text[], $3::int[], $4::float8[], $5::float8[], $6::boolean[], $7::timestamptz[],
                   $9::int[], $10::float8[], $11::float8[], $12::int[], $13::float8[], $14::float8[], $15::text[])
         AS x(c, m, e, r, mm, f, fs, pe, pr, pmm, re, rr, rmm, fr)
       ON CONFLICT (contributor_id, model) DO UPDATE SET events = EXCLUDED.events, median_ratio = EXCLUDED.median_ratio,
         model_median_ratio = EXCLUDED.model_median_ratio, flagged = EXCLUDED.flagged, flagged_since = EXCLUDED.flagged_since, updated_at = EXCLUDED.updated_at,
         prompt_events = EXCLUDED.prompt_events, prompt_median_ratio = EXCLUDED.prompt_median_ratio, prompt_model_median_ratio = EXCLUDED.prompt_model_median_ratio,
         reasoning_events = EXCLUDED.reasoning_events, reasoning_median_ratio = EXCLUDED.reasoning_median_ratio,
         reasoning_model_median_ratio = EXCLUDED.reasoning_model_median_ratio, flagged_ratios = EXCLUDED.flagged_ratios`,
      [
        verdicts.map((v) => v.contributorId),
        verdicts.map((v) => v.model),
        verdicts.map((v) => v.events),
        verdicts.map((v) => v.medianRatio),
        verdicts.map((v) => v.modelMedianRatio),
        verdicts.map((v) => v.flagged),
        verdicts.map((v) => v.flaggedSince?.toISOString() ?? null),
        at,
        verdicts.map((v) => v.prompt.events),
        verdicts.map((v) => v.prompt.medianRatio),
        verdicts.map((v) => v.prompt.modelMedianRatio),
        verdicts.map((v) => v.reasoning.events),
        verdicts.map((v) => v.reasoning.medianRatio),
        verdicts.map((v) => v.reasoning.modelMedianRatio),
        // A flat text per row: unnest cannot take an array of arrays of different lengths.
        verdicts.map((v) => v.flaggedRatios.join(',')),
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
      await client.query(
        `UPDATE usage_audit_stats SET flagged = false, flagged_since = NULL, flagged_ratios = '{}', events = 0, prompt_events = 0, reasoning_events = 0, updated_at = $2
         WHERE contributor_id = $1`,
        [review.contributorId, review.at],
      );
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
      prompt_events: number;
      prompt_median_ratio: string | null;
      prompt_model_median_ratio: string | null;
      reasoning_events: number;
      reasoning_median_ratio: string | null;
      reasoning_model_median_ratio: string | null;
      flagged: boolean;
      flagged_ratios: AuditRatio[];
      flagged_since: Date | null;
    }>(
      `SELECT contributor_id, model, events, median_ratio::text, model_median_ratio::text,
              prompt_events, prompt_median_ratio::text, prompt_model_median_ratio::text,
              reasoning_events, reasoning_median_ratio::text, reasoning_model_median_ratio::text,
              flagged, flagged_ratios, flagged_since
       FROM usage_audit_stats ORDER BY model, contributor_id`,
    );
    return result.rows.map((r) => ({
      contributorId: r.contributor_id,
      model: r.model,
      events: r.events,
      medianRatio: r.median_ratio,
      modelMedianRatio: r.model_median_ratio,
      prompt: { events: r.prompt_events, medianRatio: r.prompt_median_ratio, modelMedianRatio: r.prompt_model_median_ratio },
      reasoning: { events: r.reasoning_events, medianRatio: r.reasoning_median_ratio, modelMedianRatio: r.reasoning_model_median_ratio },
      flagged: r.flagged,
      flaggedRatios: r.flagged_ratios,
      flaggedSince: r.flagged_since,
    }));
  }
}
