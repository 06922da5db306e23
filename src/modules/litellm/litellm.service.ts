import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DatabaseService } from '../../database/database.service.js';
import { DomainError, zodIssuesToFields } from '../../common/errors/index.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { AuditService } from '../audit/audit.service.js';
import { ContributorsService } from '../contributors/contributors.service.js';
import { usageEventSchema } from '../usage/usage.schemas.js';
import { UsageService, type BatchItemResult } from '../usage/usage.service.js';
import { UNREADABLE_LINE } from './litellm-body.js';
import { billableEvent, planLitellmPayload, UNATTRIBUTED_CONTRIBUTOR, type LitellmPlan, type RejectReason, type SkipReason } from './litellm-payload.js';
import { LitellmRepository, type Deployment, type LitellmSource, type ParkedRequest } from './litellm.repository.js';

/** Payloads of one push built, mapped and written at a time: the heap holds one group whatever the body. */
export const PUSH_GROUP_PAYLOADS = 1000;
/** Parked calls billed per usage-writer submission when their deployment is mapped. */
const PARKED_BILL_CHUNK = 500;
/** Deployments listed at most by GET /v1/admin/integrations/litellm/deployments. */
export const DEPLOYMENTS_LIST_MAX = 1000;

export type LitellmStatus = 'priced' | 'duplicate' | 'unpriced' | 'unattributed' | 'skipped' | 'rejected';
export interface LitellmResult {
  id: string | null;
  event_id: string | null;
  status: LitellmStatus;
  /** Why it was skipped, or (rejected) which check refused it. */
  reason?: SkipReason | RejectReason;
  error?: { code: string; message: string; details?: unknown };
}

type EventPlan = Extract<LitellmPlan, { kind: 'event' }>;

@Injectable()
export class LitellmService implements OnModuleInit {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DatabaseService,
    private readonly repository: LitellmRepository,
    private readonly usage: UsageService,
    private readonly contributors: ContributorsService,
    private readonly audit: AuditService,
  ) {}

  onModuleInit(): void {
    this.usage.addPendingLookup((eventId) => this.parkedBody(eventId));
  }

  /**
   * POST /v1/integrations/litellm, first half: every payload mapped as it is read (only its plan
   * is kept), before anything is written, so a body refused half way (LitellmBodyRefused, thrown
   * by the iteration) changes nothing. Synchronous: the body can be released once it returns.
   */
  plan(payloads: Iterable<unknown>): LitellmPlan[] {
    const options = this.mappingOptions();
    const plans: LitellmPlan[] = [];
    for (const payload of payloads) plans.push(planOf(payload, options));
    return plans;
  }

  /** The push's second half: the plans written a group at a time; one result per payload, in input order. */
  async push(plans: LitellmPlan[]): Promise<LitellmResult[]> {
    const results: LitellmResult[] = [];
    for (let from = 0; from < plans.length; from += PUSH_GROUP_PAYLOADS) {
      for (const result of await this.ingestPlans(plans.slice(from, from + PUSH_GROUP_PAYLOADS), 'push')) results.push(result);
    }
    await this.repository.recordSync('push', plans.length, null, rejectionCounts(results));
    return results;
  }

  private mappingOptions() {
    return { userFields: this.config.LITELLM_USER_FIELDS, nowMs: Date.now(), futureSkewMs: this.config.EVENT_OCCURRED_AT_FUTURE_SKEW_MS };
  }

  /**
   * Maps each payload (api.md), answers replays from what was remembered, bills mapped calls
   * through the usage writer (as /v1/usage-events/batch does), parks unmapped ones and remembers
   * skipped ones. The entries are released as they are mapped: only the small plans are kept.
   */
  async ingest(entries: unknown[], source: LitellmSource): Promise<LitellmResult[]> {
    const options = this.mappingOptions();
    return this.ingestPlans(entries.map((entry) => planOf(entry, options)), source);
  }

  private async ingestPlans(plans: LitellmPlan[], source: LitellmSource): Promise<LitellmResult[]> {
    const results: LitellmResult[] = new Array(plans.length);
    const toSkip: Array<{ index: number; plan: Extract<LitellmPlan, { kind: 'skipped' }> }> = [];
    const billable: Array<{ index: number; plan: EventPlan }> = [];
    for (let i = 0; i < plans.length; i += 1) {
      const plan = plans[i]!;
      if (plan.kind === 'rejected') results[i] = { id: plan.id, event_id: plan.eventId, status: 'rejected', reason: plan.reason, error: { code: 'validation_failed', message: plan.message } };
      // A skipped payload answers its own reason, replayed or not, and claims nothing.
      else if (plan.kind === 'skipped') toSkip.push({ index: i, plan });
      else billable.push({ index: i, plan });
    }

    // Only a call that became an event (billed or parked) is known: a skipped one never claims its id.
    const remembered = await this.repository.findRequests(billable.map((b) => b.plan.eventId));
    const toBill: Array<{ index: number; plan: EventPlan }> = [];
    for (const item of billable) {
      const known = remembered.get(item.plan.eventId);
      if (known?.status === 'unattributed' || known?.status === 'billed') results[item.index] = { id: item.plan.id, event_id: item.plan.eventId, status: 'duplicate' };
      else toBill.push(item);
    }

    await this.skip(toSkip, source, results);
    const mapped = await this.repository.contributorsOf([...new Set(toBill.map((b) => b.plan.modelId))]);
    await this.bill(toBill.filter((b) => mapped.has(b.plan.modelId)), mapped, results);
    const parked = await this.park(toBill.filter((b) => !mapped.has(b.plan.modelId)), source, results);
    // A mapping created while these were parked saw none of them: bill them now (either the PUT
    // sees the parked rows or this sees the mapping, as both commit before they read).
    if (parked.length > 0) await this.billParked([...new Set(parked)]);
    return results;
  }

  /** Remembered for the record only (the first reason of an id): a later billable payload with its id is billed. */
  private async skip(items: Array<{ index: number; plan: Extract<LitellmPlan, { kind: 'skipped' }> }>, source: LitellmSource, results: LitellmResult[]) {
    await this.repository.insertSkipped(uniqueByEventId(items).map((s) => ({ eventId: s.plan.eventId, reason: s.plan.reason })), source);
    for (const { index, plan } of items) results[index] = { id: plan.id, event_id: plan.eventId, status: 'skipped', reason: plan.reason };
  }

  private async bill(items: Array<{ index: number; plan: EventPlan }>, mapping: Map<string, string>, results: LitellmResult[]) {
    if (items.length === 0) return;
    const outcomes = await this.usage.ingestBatch(
      items.map((b) => billableEvent(b.plan, mapping.get(b.plan.modelId)!)),
      'litellm',
    );
    outcomes.forEach((outcome, i) => {
      const { index, plan } = items[i]!;
      results[index] = litellmResultOf(plan, outcome);
    });
  }

  /** Unmapped deployments: validated as an event would be, then stored without a contributor. */
  private async park(items: Array<{ index: number; plan: EventPlan }>, source: LitellmSource, results: LitellmResult[]): Promise<string[]> {
    const valid: Array<{ index: number; plan: EventPlan }> = [];
    for (const item of items) {
      const parsed = usageEventSchema.safeParse({ ...item.plan.event, contributor_id: UNATTRIBUTED_CONTRIBUTOR });
      if (parsed.success) valid.push(item);
      else results[item.index] = { id: item.plan.id, event_id: item.plan.eventId, status: 'rejected', reason: 'event', error: { code: 'validation_failed', message: 'event validation failed', details: zodIssuesToFields(parsed.error) } };
    }
    const unique = uniqueByEventId(valid);
    const inserted = await this.repository.insertParked(unique.map((v) => ({ eventId: v.plan.eventId, modelId: v.plan.modelId, event: v.plan.event })), source);
    const first = new Set<string>();
    for (const { index, plan } of valid) {
      // The first of an id in this body (and not parked before by a concurrent call) is the parked one.
      const isFirst = inserted.has(plan.eventId) && !first.has(plan.eventId);
      first.add(plan.eventId);
      results[index] = { id: plan.id, event_id: plan.eventId, status: isFirst ? 'unattributed' : 'duplicate' };
    }
    return unique.filter((v) => inserted.has(v.plan.eventId)).map((v) => v.plan.modelId);
  }

  /**
   * Bills the parked calls of these deployments that now have a contributor, through the usage
   * writer (idempotent by event id: a second run, or a crash between the write and the mark,
   * only replays). Returns how many were billed.
   */
  async billParked(modelIds: string[]): Promise<number> {
    const mapping = await this.repository.contributorsOf(modelIds);
    let billed = 0;
    for (const [modelId, contributorId] of mapping) {
      let after = '';
      for (;;) {
        const parked = await this.repository.parkedAfter(modelId, after, PARKED_BILL_CHUNK);
        if (parked.length === 0) break;
        const outcomes = await this.usage.ingestBatch(
          parked.map((p) => ({ ...p.event, contributor_id: contributorId })),
          'litellm',
        );
        const done = parked.filter((_, i) => isWritten(outcomes[i]!)).map((p) => p.eventId);
        billed += await this.repository.markBilled(done);
        after = parked.at(-1)!.eventId;
        if (parked.length < PARKED_BILL_CHUNK) break;
      }
    }
    return billed;
  }

  /** Parked calls of deployments mapped meanwhile (safety net of the scheduled backfill). */
  async billMappedParked(): Promise<number> {
    const modelIds = await this.repository.mappedParkedModelIds();
    return modelIds.length === 0 ? 0 : this.billParked(modelIds);
  }

  /** PUT /v1/admin/integrations/litellm/deployments/:model_id, audited; then bills what was parked for it. */
  async mapDeployment(actor: Principal, modelId: string, contributorId: string): Promise<{ deployment: Deployment; billed: number; created: boolean }> {
    const contributor = await this.contributors.findById(contributorId);
    if (!contributor) throw new DomainError('unknown_contributor', `contributor ${contributorId} is not registered`);
    const { deployment, created } = await this.db.transaction(async (client) => {
      const before = await this.repository.findDeployment(client, modelId);
      const after = await this.repository.upsertDeployment(client, modelId, contributorId);
      await this.audit.recordWithSql(client, actor, {
        action: 'litellm.deployment.map',
        target: modelId,
        before: before ? { contributor_id: before.contributorId } : null,
        after: { contributor_id: after.contributorId },
      });
      return { deployment: after, created: before === null };
    });
    const billed = await this.billParked([modelId]);
    return { deployment, billed, created };
  }

  listDeployments() {
    return this.repository.listDeployments(DEPLOYMENTS_LIST_MAX);
  }

  async status(now: Date = new Date()) {
    const [push, pull, rejections] = await Promise.all([this.repository.syncState('push'), this.repository.syncState('pull'), this.repository.rejectionCounts()]);
    const checkpoint = pull?.checkpoint ?? null;
    const rejected = (path: LitellmSource) => {
      const byReason = rejections.filter((r) => r.path === path);
      return { rejected: byReason.reduce((sum, r) => sum + r.count, 0), rejected_by_reason: Object.fromEntries(byReason.map((r) => [r.reason, r.count])) };
    };
    return {
      push: { last_at: push?.lastAt?.toISOString() ?? null, payloads: Number(push?.payloads ?? 0n), ...rejected('push') },
      pull: {
        enabled: this.config.LITELLM_DATABASE_URL !== undefined,
        checkpoint: checkpoint?.toISOString() ?? null,
        lag_seconds: checkpoint === null ? null : Math.max(0, Math.round((now.getTime() - checkpoint.getTime()) / 1000)),
        events: Number(pull?.payloads ?? 0n),
        ...rejected('pull'),
      },
    };
  }

  /** GET /v1/usage-events/:event_id of a parked call: what it will be billed on, without a contributor yet. */
  private async parkedBody(eventId: string): Promise<Record<string, unknown> | null> {
    const parked = await this.repository.findParked(eventId);
    return parked ? parkedEventBody(parked) : null;
  }
}

function parkedEventBody(parked: ParkedRequest): Record<string, unknown> {
  const e = parked.event as { model?: string; user_id?: string; occurred_at?: string; price_variant?: string; usage?: Record<string, number>; metadata?: Record<string, unknown> };
  const usage = e.usage ?? {};
  const body: Record<string, unknown> = {
    event_id: parked.eventId,
    status: 'unattributed',
    model: e.model,
    price_variant: e.price_variant ?? 'standard',
    user_id: e.user_id,
    contributor_id: null,
    occurred_at: e.occurred_at,
    usage: { cached_tokens: 0, reasoning_tokens: 0, ...usage },
    hold_id: null,
    litellm_model_id: parked.modelId,
    metadata: e.metadata ?? null,
    source: 'litellm',
    received_at: parked.receivedAt.toISOString(),
  };
  const cost = e.metadata?.litellm_response_cost_usd;
  if (typeof cost === 'string') body.litellm_response_cost_usd = cost;
  return body;
}

/**
 * The usage writer's answer as a LiteLLM result. A payload whose id is already a usage event with
 * other details (the same call by push and by pull, whose spend row carries less) is a duplicate:
 * the call is billed once, whatever the path that brought it first.
 */
function litellmResultOf(plan: EventPlan, outcome: BatchItemResult): LitellmResult {
  const base = { id: plan.id, event_id: plan.eventId };
  if (outcome.status === 'rejected') {
    if (outcome.error.code === 'idempotency_conflict') return { ...base, status: 'duplicate' };
    return { ...base, status: 'rejected', reason: 'event', error: outcome.error };
  }
  return { ...base, status: outcome.status };
}

function planOf(entry: unknown, options: Parameters<typeof planLitellmPayload>[1]): LitellmPlan {
  return entry === UNREADABLE_LINE ? { kind: 'rejected', id: null, eventId: null, reason: 'unreadable', message: 'this payload is not JSON text' } : planLitellmPayload(entry, options);
}

/** Rejected entries by reason, for the counters of the status and /metrics. */
export function rejectionCounts(results: readonly LitellmResult[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of results) if (r.status === 'rejected') counts.set(r.reason ?? 'event', (counts.get(r.reason ?? 'event') ?? 0) + 1);
  return counts;
}

function isWritten(outcome: BatchItemResult): boolean {
  return outcome.status !== 'rejected' || outcome.error.code === 'idempotency_conflict';
}

function uniqueByEventId<T extends { plan: { eventId: string } }>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => (seen.has(item.plan.eventId) ? false : (seen.add(item.plan.eventId), true)));
}
