// usage.unpriced, at most once per model and UTC hour. Each process remembers which models it has
// announced this hour, so the write path asks Postgres for nothing in the common case (no new
// unpriced model); the event's dedupe key makes it once across processes. Pure but for the memo.
import type { WebhookEventInput } from '../webhooks/webhook-outbox.service.js';
import type { PlannedEvent } from './usage.types.js';

/** Models remembered per process per hour (unpriced models are few; the memo is bounded anyway). */
const MODELS_REMEMBERED_MAX = 10_000;

export function hourStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 3600_000) * 3600_000);
}

export class UnpricedAnnouncements {
  private hourMs = -1;
  private readonly announced = new Set<string>();

  /** Unpriced models among the plans not announced this hour (usually none). */
  toAnnounce(plans: readonly PlannedEvent[], now: Date): string[] {
    this.roll(now);
    let models: Set<string> | null = null;
    for (const p of plans) {
      if (p.amounts !== null || this.announced.has(p.event.model)) continue;
      (models ??= new Set()).add(p.event.model);
    }
    return models ? [...models].sort() : [];
  }

  markAnnounced(models: readonly string[], now: Date): void {
    this.roll(now);
    if (this.announced.size + models.length > MODELS_REMEMBERED_MAX) this.announced.clear();
    for (const model of models) this.announced.add(model);
  }

  private roll(now: Date): void {
    const hourMs = hourStart(now).getTime();
    if (hourMs !== this.hourMs) {
      this.hourMs = hourMs;
      this.announced.clear();
    }
  }
}

/** The events for the multi-statement write path (the one-statement path builds them in SQL). */
export function unpricedEvents(fresh: readonly PlannedEvent[], models: readonly string[], now: Date): WebhookEventInput[] {
  const hour = hourStart(now).toISOString();
  const firstByModel = new Map<string, PlannedEvent>();
  for (const p of [...fresh].sort((a, b) => (a.event.eventId < b.event.eventId ? -1 : 1))) {
    if (p.amounts === null && models.includes(p.event.model) && !firstByModel.has(p.event.model)) firstByModel.set(p.event.model, p);
  }
  return [...firstByModel.values()].map((p) => ({
    type: 'usage.unpriced',
    data: { model: p.event.model, hour, event_id: p.event.eventId, occurred_at: p.event.occurredAt.toISOString() },
    occurredAt: p.event.occurredAt,
    dedupeKey: `usage.unpriced:${p.event.model}:${hour.slice(0, 13)}Z`,
  }));
}
