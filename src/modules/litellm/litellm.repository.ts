import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import type { SkipReason } from './litellm-payload.js';

export type LitellmSource = 'push' | 'pull';

export interface RememberedRequest {
  eventId: string;
  status: 'skipped' | 'unattributed' | 'billed' | 'rejected';
  reason: SkipReason | null;
}

export interface ParkedRequest {
  eventId: string;
  modelId: string;
  event: Record<string, unknown>;
  source: LitellmSource;
  receivedAt: Date;
}

export interface Deployment {
  modelId: string;
  contributorId: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface SyncState {
  payloads: bigint;
  lastAt: Date | null;
  checkpoint: Date | null;
  /** Late sweeps completed (pull): the next run sweeps slice sweepRuns mod LATE_SWEEP_SLICES. */
  sweepRuns: number;
}

/** litellm_deployments, litellm_requests and litellm_sync_state (the migration says what each holds). */
@Injectable()
export class LitellmRepository {
  constructor(private readonly db: DatabaseService) {}

  async findRequests(eventIds: string[]): Promise<Map<string, RememberedRequest>> {
    if (eventIds.length === 0) return new Map();
    const result = await this.db.pool.query<{ event_id: string; status: RememberedRequest['status']; reason: SkipReason | null }>(
      'SELECT event_id, status, reason FROM litellm_requests WHERE event_id = ANY($1::text[])',
      [eventIds],
    );
    return new Map(result.rows.map((r) => [r.event_id, { eventId: r.event_id, status: r.status, reason: r.reason }]));
  }

  /**
   * Event ids already taken (a usage event, a parked call, or a spend row rejected before): the
   * pull ingests only the others. A skipped call is not known: it claims no id.
   */
  async knownEventIds(eventIds: string[]): Promise<Set<string>> {
    if (eventIds.length === 0) return new Set();
    const result = await this.db.pool.query<{ event_id: string }>(
      `SELECT event_id FROM usage_event_keys WHERE event_id = ANY($1::text[])
       UNION SELECT event_id FROM litellm_requests WHERE event_id = ANY($1::text[]) AND status <> 'skipped'`,
      [eventIds],
    );
    return new Set(result.rows.map((r) => r.event_id));
  }

  /** Remembers skipped calls; returns the ids this call inserted (a concurrent one may have won). */
  async insertSkipped(rows: Array<{ eventId: string; reason: SkipReason }>, source: LitellmSource): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const result = await this.db.pool.query<{ event_id: string }>(
      `INSERT INTO litellm_requests (event_id, status, reason, source)
       SELECT e, 'skipped', r, $3 FROM unnest($1::text[], $2::text[]) AS t(e, r)
       ORDER BY e
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [rows.map((r) => r.eventId), rows.map((r) => r.reason), source],
    );
    return new Set(result.rows.map((r) => r.event_id));
  }

  /** Spend rows the pull cannot take, with their reason: re-read, they are neither retried nor counted again. */
  async insertRejected(rows: Array<{ eventId: string; reason: string }>): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const result = await this.db.pool.query<{ event_id: string }>(
      `INSERT INTO litellm_requests (event_id, status, reason, source)
       SELECT e, 'rejected', r, 'pull' FROM unnest($1::text[], $2::text[]) AS t(e, r)
       ORDER BY e
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id`,
      [rows.map((r) => r.eventId), rows.map((r) => r.reason)],
    );
    return new Set(result.rows.map((r) => r.event_id));
  }

  /**
   * Parks unattributed calls (usage counts only); returns the ids this call inserted. A call
   * remembered as skipped or rejected is parked over that record (neither claims its id).
   */
  async insertParked(rows: Array<{ eventId: string; modelId: string; event: Record<string, unknown> }>, source: LitellmSource): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const result = await this.db.pool.query<{ event_id: string }>(
      `INSERT INTO litellm_requests (event_id, status, model_id, event, source)
       SELECT e, 'unattributed', m, ev, $4 FROM unnest($1::text[], $2::text[], $3::jsonb[]) AS t(e, m, ev)
       ORDER BY e
       ON CONFLICT (event_id) DO UPDATE SET status = 'unattributed', reason = NULL, model_id = EXCLUDED.model_id, event = EXCLUDED.event,
         source = EXCLUDED.source, received_at = now()
         WHERE litellm_requests.status IN ('skipped', 'rejected')
       RETURNING event_id`,
      [rows.map((r) => r.eventId), rows.map((r) => r.modelId), rows.map((r) => JSON.stringify(r.event)), source],
    );
    return new Set(result.rows.map((r) => r.event_id));
  }

  async parkedAfter(modelId: string, afterEventId: string, limit: number): Promise<ParkedRequest[]> {
    const result = await this.db.pool.query<{ event_id: string; model_id: string; event: Record<string, unknown>; source: LitellmSource; received_at: Date }>(
      `SELECT event_id, model_id, event, source, received_at FROM litellm_requests
       WHERE status = 'unattributed' AND model_id = $1 AND event_id > $2 ORDER BY event_id LIMIT $3`,
      [modelId, afterEventId, limit],
    );
    return result.rows.map((r) => ({ eventId: r.event_id, modelId: r.model_id, event: r.event, source: r.source, receivedAt: r.received_at }));
  }

  /** Parked deployments (model ids) that now have a mapping: the backfill bills them as a safety net. */
  async mappedParkedModelIds(): Promise<string[]> {
    const result = await this.db.pool.query<{ model_id: string }>(
      `SELECT DISTINCT r.model_id FROM litellm_requests r JOIN litellm_deployments d ON d.model_id = r.model_id WHERE r.status = 'unattributed'`,
    );
    return result.rows.map((r) => r.model_id);
  }

  async findParked(eventId: string): Promise<ParkedRequest | null> {
    const result = await this.db.pool.query<{ event_id: string; model_id: string; event: Record<string, unknown>; source: LitellmSource; received_at: Date }>(
      `SELECT event_id, model_id, event, source, received_at FROM litellm_requests WHERE event_id = $1 AND status = 'unattributed'`,
      [eventId],
    );
    const r = result.rows[0];
    return r ? { eventId: r.event_id, modelId: r.model_id, event: r.event, source: r.source, receivedAt: r.received_at } : null;
  }

  /** The parked calls are usage events now: the event itself is dropped (the usage event keeps it). */
  async markBilled(eventIds: string[]): Promise<number> {
    if (eventIds.length === 0) return 0;
    const result = await this.db.pool.query(
      `UPDATE litellm_requests SET status = 'billed', event = NULL, billed_at = now()
       WHERE event_id = ANY($1::text[]) AND status = 'unattributed'`,
      [[...eventIds].sort()],
    );
    return result.rowCount ?? 0;
  }

  async contributorsOf(modelIds: string[]): Promise<Map<string, string>> {
    if (modelIds.length === 0) return new Map();
    const result = await this.db.pool.query<{ model_id: string; contributor_id: string }>(
      'SELECT model_id, contributor_id FROM litellm_deployments WHERE model_id = ANY($1::text[])',
      [modelIds],
    );
    return new Map(result.rows.map((r) => [r.model_id, r.contributor_id]));
  }

  async findDeployment(client: SqlClient, modelId: string): Promise<Deployment | null> {
    const result = await client.query<DeploymentRow>(`SELECT ${DEPLOYMENT_COLUMNS} FROM litellm_deployments WHERE model_id = $1 FOR UPDATE`, [modelId]);
    return result.rows[0] ? deploymentOf(result.rows[0]) : null;
  }

  /** Creates or changes a mapping; the same mapping again changes nothing (an idempotent PUT). */
  async upsertDeployment(client: SqlClient, modelId: string, contributorId: string): Promise<Deployment> {
    const result = await client.query<DeploymentRow>(
      `INSERT INTO litellm_deployments (model_id, contributor_id) VALUES ($1, $2)
       ON CONFLICT (model_id) DO UPDATE SET contributor_id = EXCLUDED.contributor_id, updated_at = now()
         WHERE litellm_deployments.contributor_id IS DISTINCT FROM EXCLUDED.contributor_id
       RETURNING ${DEPLOYMENT_COLUMNS}`,
      [modelId, contributorId],
    );
    if (result.rows[0]) return deploymentOf(result.rows[0]);
    const unchanged = await this.findDeployment(client, modelId);
    return unchanged!;
  }

  /** Every mapping with the count of its calls still parked, and the parked calls of deployments nobody mapped. */
  async listDeployments(limit: number): Promise<{ mapped: Array<Deployment & { parked: number }>; unmapped: Array<{ modelId: string; parked: number }> }> {
    const [mapped, unmapped] = await Promise.all([
      this.db.readPool.query<DeploymentRow & { parked: string }>(
        `SELECT ${DEPLOYMENT_COLUMNS.split(', ').map((c) => `d.${c}`).join(', ')},
                (SELECT count(*) FROM litellm_requests r WHERE r.model_id = d.model_id AND r.status = 'unattributed') AS parked
         FROM litellm_deployments d ORDER BY d.model_id LIMIT $1`,
        [limit],
      ),
      this.db.readPool.query<{ model_id: string; parked: string }>(
        `SELECT r.model_id, count(*) AS parked FROM litellm_requests r
         WHERE r.status = 'unattributed' AND NOT EXISTS (SELECT 1 FROM litellm_deployments d WHERE d.model_id = r.model_id)
         GROUP BY r.model_id ORDER BY r.model_id LIMIT $1`,
        [limit],
      ),
    ]);
    return {
      mapped: mapped.rows.map((r) => ({ ...deploymentOf(r), parked: Number(r.parked) })),
      unmapped: unmapped.rows.map((r) => ({ modelId: r.model_id, parked: Number(r.parked) })),
    };
  }

  /** Counts the payloads one push (or one pull run) brought, and the entries it rejected by reason. */
  async recordSync(path: LitellmSource, payloads: number, checkpoint: Date | null = null, rejected: ReadonlyMap<string, number> = new Map()): Promise<void> {
    if (rejected.size > 0) {
      const reasons = [...rejected.keys()].sort();
      await this.db.pool.query(
        `INSERT INTO litellm_rejections (path, reason, count) SELECT $1, r, n FROM unnest($2::text[], $3::bigint[]) AS t(r, n)
         ON CONFLICT (path, reason) DO UPDATE SET count = litellm_rejections.count + EXCLUDED.count, last_at = now()`,
        [path, reasons, reasons.map((r) => rejected.get(r)!)],
      );
    }
    await this.db.pool.query(
      `INSERT INTO litellm_sync_state (path, payloads, last_at, checkpoint) VALUES ($1, $2, now(), $3)
       ON CONFLICT (path) DO UPDATE SET payloads = litellm_sync_state.payloads + EXCLUDED.payloads, last_at = now(),
         checkpoint = GREATEST(litellm_sync_state.checkpoint, EXCLUDED.checkpoint)`,
      [path, payloads, checkpoint],
    );
  }

  /** The late sweep's figures of these minutes when the pull last read them (litellm_pull_minutes). */
  async pullMinutes(minutes: string[]): Promise<Map<string, { rows: number; idHashSum: string }>> {
    if (minutes.length === 0) return new Map();
    const result = await this.db.pool.query<{ minute: Date; rows: string; id_hash_sum: string }>(
      'SELECT minute, rows, id_hash_sum::text AS id_hash_sum FROM litellm_pull_minutes WHERE minute = ANY($1::timestamptz[])',
      [minutes],
    );
    return new Map(result.rows.map((r) => [r.minute.toISOString().replace('.000Z', 'Z'), { rows: Number(r.rows), idHashSum: r.id_hash_sum }]));
  }

  /** Records what the sweep read of these minutes, and forgets the minutes older than the late window. */
  async savePullMinutes(minutes: Array<{ minute: string; rows: number; idHashSum: string }>, forgetBefore: string): Promise<void> {
    if (minutes.length > 0) {
      const sorted = [...minutes].sort((a, b) => a.minute.localeCompare(b.minute));
      await this.db.pool.query(
        `INSERT INTO litellm_pull_minutes (minute, rows, id_hash_sum) SELECT m, r, h FROM unnest($1::timestamptz[], $2::bigint[], $3::numeric[]) AS t(m, r, h)
         ON CONFLICT (minute) DO UPDATE SET rows = EXCLUDED.rows, id_hash_sum = EXCLUDED.id_hash_sum`,
        [sorted.map((m) => m.minute), sorted.map((m) => m.rows), sorted.map((m) => m.idHashSum)],
      );
    }
    await this.db.pool.query('DELETE FROM litellm_pull_minutes WHERE minute < $1::timestamptz', [forgetBefore]);
  }

  async rejectionCounts(): Promise<Array<{ path: LitellmSource; reason: string; count: number }>> {
    const result = await this.db.pool.query<{ path: LitellmSource; reason: string; count: string }>('SELECT path, reason, count FROM litellm_rejections ORDER BY path, reason');
    return result.rows.map((r) => ({ path: r.path, reason: r.reason, count: Number(r.count) }));
  }

  async syncState(path: LitellmSource): Promise<SyncState | null> {
    const result = await this.db.pool.query<{ payloads: string; last_at: Date | null; checkpoint: Date | null; sweep_runs: string }>(
      'SELECT payloads, last_at, checkpoint, sweep_runs::text AS sweep_runs FROM litellm_sync_state WHERE path = $1',
      [path],
    );
    const r = result.rows[0];
    return r ? { payloads: BigInt(r.payloads), lastAt: r.last_at, checkpoint: r.checkpoint, sweepRuns: Number(r.sweep_runs) } : null;
  }

  /**
   * Counts the late sweep of run `run` (the number it read at its start) as done. A run that
   * overlapped another of the same number counts nothing: the number moves once per slice swept.
   */
  async sweepRunDone(run: number): Promise<void> {
    await this.db.pool.query(
      `INSERT INTO litellm_sync_state (path, sweep_runs) VALUES ('pull', $1::bigint + 1)
       ON CONFLICT (path) DO UPDATE SET sweep_runs = EXCLUDED.sweep_runs WHERE litellm_sync_state.sweep_runs = $1::bigint`,
      [run],
    );
  }
}

interface DeploymentRow {
  model_id: string;
  contributor_id: string;
  created_at: Date;
  updated_at: Date;
}
const DEPLOYMENT_COLUMNS = 'model_id, contributor_id, created_at, updated_at';
function deploymentOf(r: DeploymentRow): Deployment {
  return { modelId: r.model_id, contributorId: r.contributor_id, createdAt: r.created_at, updatedAt: r.updated_at };
}
