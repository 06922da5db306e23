// The usage audit (api.md "Contributor trust"): records counted samples, runs the verdicts, and
// takes the reviews of flagged contributors. It never touches a charge, a payout or the ledger:
// the only effect of a flag is the hold on payouts (USAGE_AUDIT_HOLD), checked when a line is sent.
import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import type { UsageAuditSample } from '../../queue/jobs.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { AuditService } from '../audit/audit.service.js';
import { ContributorsService } from '../contributors/contributors.service.js';
import { WebhookOutbox, type WebhookEventInput } from '../webhooks/webhook-outbox.service.js';
import { countSample, type CountedSample } from './usage-audit-counter.js';
import { auditRows, type AuditRules, type RatioVerdict } from './usage-audit-stats.js';
import { UsageAuditRepository, type StoredVerdict, type VerdictWrite } from './usage-audit.repository.js';

/** The newest samples per contributor and model a verdict reads: recent behaviour, bounded work. */
export const AUDIT_WINDOW_EVENTS = 1_000;

export interface AuditRunResult {
  groups: number;
  flagged: number;
  newlyFlagged: number;
}

@Injectable()
export class UsageAuditService {
  private readonly rules: AuditRules;
  private readonly promptTolerance: number;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: UsageAuditRepository,
    private readonly contributors: ContributorsService,
    private readonly audit: AuditService,
    private readonly webhooks: WebhookOutbox,
  ) {
    this.rules = { minEvents: config.USAGE_AUDIT_MIN_EVENTS, threshold: config.USAGE_AUDIT_THRESHOLD, madMultiple: config.USAGE_AUDIT_MAD_MULTIPLE };
    this.promptTolerance = config.USAGE_AUDIT_PROMPT_TOLERANCE;
  }

  /** Counts each stream's tokens (the worker's job) and stores only the counts. */
  async recordSamples(samples: readonly UsageAuditSample[]): Promise<number> {
    const counted = samples.map(countSample).filter((s): s is CountedSample => s !== null);
    return this.repository.insertSamples(counted);
  }

  /** One audit run: every verdict rewritten; a new flag is announced and (hold) stops payouts. */
  async run(now: Date = new Date()): Promise<AuditRunResult> {
    return this.repository.transaction(async (client) => {
      const before = await this.repository.lockVerdicts(client);
      const verdicts = auditRows(await this.repository.ratioRows(client, AUDIT_WINDOW_EVENTS), this.rules, this.promptTolerance);
      const writes: VerdictWrite[] = [];
      const announced: WebhookEventInput[] = [];
      for (const v of verdicts) {
        const previous = before.get(`${v.contributorId}\u0000${v.model}`);
        const wasFlagged = previous?.flagged === true;
        // Every sample has a completion ratio (a stream with nothing to count is not sampled).
        const completion = v.ratios.completion ?? { events: 0, medianRatio: 0, modelMedianRatio: null, flagged: false };
        writes.push({
          contributorId: v.contributorId,
          model: v.model,
          events: completion.events,
          medianRatio: completion.medianRatio,
          modelMedianRatio: completion.modelMedianRatio,
          prompt: ratioWrite(v.ratios.prompt),
          reasoning: ratioWrite(v.ratios.reasoning),
          flagged: v.flagged,
          flaggedRatios: v.flaggedRatios,
          flaggedSince: v.flagged ? (wasFlagged ? previous!.flaggedSince : now) : null,
        });
        if (v.flagged && !wasFlagged) {
          const ratio = v.flaggedRatios[0]!;
          const flagging = v.ratios[ratio]!;
          announced.push({
            type: 'contributor.usage_anomaly',
            data: {
              contributor_id: v.contributorId,
              model: v.model,
              median_ratio: ratioText(flagging.medianRatio),
              model_median_ratio: ratioText(flagging.modelMedianRatio!),
              events: flagging.events,
              ratio,
              flagged_ratios: v.flaggedRatios,
            },
            occurredAt: now,
          });
        }
      }
      await this.repository.writeVerdicts(client, writes, now);
      const newlyFlagged = [...new Set(announced.map((e) => (e.data as { contributor_id: string }).contributor_id))];
      await this.contributors.markUnderReview(client, newlyFlagged, now);
      await this.webhooks.emit(client, announced);
      return { groups: verdicts.length, flagged: writes.filter((w) => w.flagged).length, newlyFlagged: announced.length };
    });
  }

  list(): Promise<StoredVerdict[]> {
    return this.repository.list();
  }

  /** clear: the hold ends and only later events count; suspend: the contributor is suspended. Audited. */
  async review(actor: Principal, contributorId: string, decision: 'clear' | 'suspend', reason: string): Promise<{ reviewedAt: Date; status: string }> {
    const at = new Date();
    return this.repository.transaction(async (client) => {
      const before = await this.contributors.applyReview(client, contributorId, decision, at);
      if (!before) throw new DomainError('not_found', 'contributor not found');
      await this.repository.insertReview(client, { contributorId, decision, reason, reviewedBy: actor.keyId, at });
      const status = decision === 'suspend' ? 'suspended' : before.status;
      await this.audit.recordWithSql(client, actor, {
        action: `contributor.review.${decision}`,
        target: `contributor:${contributorId}`,
        before: { status: before.status, under_review_since: before.underReviewSince },
        after: { status, under_review_since: null, decision, reason },
      });
      return { reviewedAt: at, status };
    });
  }
}

function ratioWrite(verdict: RatioVerdict | undefined): VerdictWrite['prompt'] {
  return verdict ? { events: verdict.events, medianRatio: verdict.medianRatio, modelMedianRatio: verdict.modelMedianRatio } : { events: 0, medianRatio: null, modelMedianRatio: null };
}

/** A ratio as a decimal string (6 decimals, trailing zeros trimmed). */
export function ratioText(ratio: number): string {
  return ratio.toFixed(6).replace(/\.?0+$/, '');
}
