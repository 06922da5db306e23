// The soak's schedule: an endless, deterministic sequence of steps drawn from the seed. Each step
// is one to three operations run at the same time, sometimes with a fault fired while they are in
// flight. A step is planned from the seeded PRNG and the planner's own state only (never from what
// the service answered), so the same seed gives the same steps whatever happens at run time; the
// hash chain over the steps' JSON (step_hashes) lets two runs of a seed be compared step by step.
// Times are planned as offsets (the executor turns them into instants), so the JSON is stable.
import { createHash } from 'node:crypto';
import { seededRandom } from '../../src/common/random/seeded-random.js';
import { STREAM_FIXTURES, STREAM_FORMATS, type StreamFormat } from './soak-stream-fixtures.js';

export const USERS = ['u_soak0', 'u_soak1', 'u_soak2', 'u_soak3'] as const;
export const CONTRIBUTORS = [
  { id: 'c_soak0', tier: 'standard' },
  { id: 'c_soak1', tier: 'premium' },
  { id: 'c_soak2', tier: 'standard' },
  { id: 'c_soak3', tier: 'premium' },
] as const;
/** Priced from the start (initial version effective 2026-01-01); price changes give them new versions. */
export const PRICED_MODELS = ['soak/alpha', 'soak/beta'] as const;
/** No price until the late_price op; its events wait unpriced until a reprice. */
export const LATE_MODEL = 'soak/late';
/** Backdated events land in these months (the default partition until a partition op creates them). */
export const BACKDATED_MONTHS = ['2026-05', '2026-06', '2026-07', '2026-08', '2026-09'] as const;
/** The clock step keeps the soak's clock within the service's future skew (5 min) and an hour back. */
export const CLOCK_OFFSET_MIN_MS = -60 * 60_000;
export const CLOCK_OFFSET_MAX_MS = 4 * 60_000;
/** Every DRAIN_EVERY steps a drain step waits for the async paths and checks the strict invariants. */
export const DRAIN_EVERY = 40;

export interface PlannedUsage {
  prompt: number;
  completion: number;
  cached: number;
}

export interface PlannedEvent {
  event_id: string;
  user_id: string;
  contributor_id: string;
  model: string;
  /** now + offset (the soak's clock), or a fixed instant in a backdated month. */
  when: { offset_ms: number } | { at: string };
  usage: PlannedUsage;
}

export type PlannedOp =
  | { op: 'single'; api: number; event: PlannedEvent }
  | { op: 'batch'; api: number; events: PlannedEvent[] }
  | { op: 'stream'; api: number; format: StreamFormat; detect: boolean; event: PlannedEvent }
  | { op: 'response'; api: number; format: StreamFormat; detect: boolean; event: PlannedEvent }
  | { op: 'queue'; event: PlannedEvent }
  | { op: 'litellm_push'; api: number; litellm_id: string; event: PlannedEvent }
  | { op: 'litellm_pull'; litellm_id: string; event: PlannedEvent; also_push: boolean }
  | { op: 'sdk_report'; event: PlannedEvent }
  | { op: 'hold_capture'; api: number; hold_id: string; amount_usd: string; event: PlannedEvent }
  | { op: 'hold_release'; api: number; hold_id: string; user_id: string; amount_usd: string }
  | { op: 'hold_race'; user_id: string; hold_ids: string[]; share_percent: number }
  | { op: 'credit'; user_id: string; reference: string; amount_usd: string; grant?: PlannedGrant; invalid?: InvalidCredit; conflict_of?: string }
  | { op: 'auto_topup'; user_id: string; enabled: boolean; below_offset_usd: string; amount_usd: string; max_per_month_usd: string }
  | { op: 'balance_alerts'; user_id: string; offsets_usd: string[] }
  | { op: 'topup_answer'; answers: TopupAnswer[] }
  | { op: 'refund'; event_id: string; refund_id: string; part: 'full' | 'half' }
  | { op: 'price_change'; model: string; input_usd_per_mtok: string; output_usd_per_mtok: string; cached_input_usd_per_mtok: string }
  | { op: 'late_price' }
  | { op: 'reprice' }
  | { op: 'address_change'; contributor_id: string; key_index: number }
  | { op: 'settlement' }
  | { op: 'approve' }
  | { op: 'partition'; month: string }
  | { op: 'archive'; before: string }
  | { op: 'webhook_mode'; receiver: 'flaky-slow' | 'flaky-dead'; mode: 'ok' | 'slow' | 'dead' | 'error' }
  | { op: 'budget_holds'; user_id: string; key_id: string; budgets: PlannedBudget[]; holds: PlannedBudgetHold[] }
  | { op: 'drain' };

/**
 * A credit grant (api.md "Credit grants"): expires_at = the service's clock (the machine's, which
 * the soak's clock steps do not move) + expires_in_ms when the credit is sent.
 */
export interface PlannedGrant {
  expires_in_ms: number;
  name: string;
}

/** A credit the service must refuse with 400 and write nothing for. */
export type InvalidCredit = 'past_expiry' | 'negative_amount' | 'blank_name' | 'too_far';

/** What a topup_answer op does with each of the oldest unanswered top-up requests, in turn. */
export type TopupAnswer = 'credit' | 'fail' | 'leave';

/** A budget scoped to one of the soak's keys (only budget_holds events name a key: its spent is the soak's own sum). */
export interface PlannedBudget {
  budget_id: string;
  limit_usd: string;
  period: 'day' | 'week' | 'month' | 'total';
  model: string | null;
  action: 'block' | 'notify';
}

/** One of the racing holds of a budget_holds op: captured by an event naming the key and model, or released. */
export interface PlannedBudgetHold {
  hold_id: string;
  amount_usd: string;
  model: string;
  capture: PlannedEvent | null;
}

export type OpKind = PlannedOp['op'];

export type PlannedFault =
  | { fault: 'kill_api'; index: number; delay_ms: number }
  | { fault: 'kill_worker'; index: number; delay_ms: number }
  | { fault: 'kill_sdk'; delay_ms: number }
  | { fault: 'restart_postgres'; how: 'fast' | 'crash'; delay_ms: number }
  | { fault: 'restart_redis'; delay_ms: number }
  | { fault: 'anvil_reorg'; depth: number; delay_ms: number }
  | { fault: 'clock_step'; offset_ms: number; delay_ms: number };

export type FaultKind = PlannedFault['fault'];

export interface Step {
  index: number;
  ops: PlannedOp[];
  fault?: PlannedFault;
}

/** Relative weights of the operations (drain is not drawn: every DRAIN_EVERY steps). */
const OP_WEIGHTS: Array<[Exclude<OpKind, 'drain'>, number]> = [
  ['single', 14], ['batch', 8], ['stream', 8], ['queue', 8], ['litellm_push', 5], ['litellm_pull', 5], ['sdk_report', 8],
  ['hold_capture', 5], ['hold_release', 3], ['hold_race', 2], ['credit', 6], ['refund', 6],
  ['price_change', 2], ['late_price', 1], ['reprice', 2], ['address_change', 2], ['settlement', 3], ['approve', 2],
  ['partition', 2], ['archive', 1], ['webhook_mode', 2], ['response', 4], ['budget_holds', 4],
  ['auto_topup', 4], ['balance_alerts', 3], ['topup_answer', 6],
];
/** Run alone (never beside another op), so the soak's own record knows their order. */
const SOLO_OPS = new Set<OpKind>(['price_change', 'late_price', 'hold_race', 'archive', 'budget_holds', 'auto_topup', 'balance_alerts']);
/** Grants that expire within the soak (the worker's sweep breaks them), and far ones. */
const GRANT_SOON_MS = [15_000, 90_000] as const;
const GRANT_FAR_DAYS = [1, 60] as const;
const DAY_MS = 86_400_000;
/** Keys per user that budget_holds uses (events elsewhere name none). */
const BUDGET_KEYS_PER_USER = 2;
const FAULT_WEIGHTS: Array<[FaultKind, number]> = [
  ['kill_api', 4], ['kill_worker', 4], ['kill_sdk', 3], ['restart_postgres', 2], ['restart_redis', 2], ['anvil_reorg', 2], ['clock_step', 3],
];
const FAULT_PROBABILITY = 0.07;
const CONCURRENT_PROBABILITY = 0.35;

function weighted<T>(random: () => number, table: Array<[T, number]>): T {
  const total = table.reduce((n, [, w]) => n + w, 0);
  let x = random() * total;
  for (const [value, w] of table) {
    x -= w;
    if (x < 0) return value;
  }
  return table.at(-1)![0];
}

/** Plans steps one by one; the same seed always plans the same steps. */
export class SoakSchedule {
  private readonly random: () => number;
  private nextIndex = 0;
  private eventCounter = 0;
  private holdCounter = 0;
  private otherCounter = 0;
  private clockOffsetMs = 0;
  private latePriced = false;
  /** Months before this index of BACKDATED_MONTHS may have been archived: no more events there. */
  private archivedThrough = 0;
  private readonly addressKeys = new Map<string, number>();
  /** Every event planned so far (refunds pick among them). */
  private readonly plannedEventIds: string[] = [];
  /** Events planned before the current step (a refund targets one of them, never one of its own step). */
  private refundableCount = 0;
  private readonly refundedThisStep = new Set<string>();
  /** Credits planned in earlier steps (a conflicting replay names one of them). */
  private readonly plannedCredits: string[] = [];
  private creditableCount = 0;
  private hash = createHash('sha256').update('soak-schedule-v3').digest('hex');

  constructor(readonly seed: number) {
    this.random = seededRandom(seed);
  }

  /** The index the next planned step gets. */
  get currentIndex(): number {
    return this.nextIndex;
  }

  /** The hash chain after the last planned step. */
  get currentHash(): string {
    return this.hash;
  }

  next(): { step: Step; hash: string } {
    const index = this.nextIndex++;
    const step: Step = { index, ops: [] };
    this.refundableCount = this.plannedEventIds.length;
    this.creditableCount = this.plannedCredits.length;
    this.refundedThisStep.clear();
    if (index % DRAIN_EVERY === DRAIN_EVERY - 1) {
      step.ops.push({ op: 'drain' });
    } else {
      const first = this.planOp(weighted(this.random, OP_WEIGHTS));
      step.ops.push(first);
      if (!SOLO_OPS.has(first.op) && this.random() < CONCURRENT_PROBABILITY) {
        const extra = 1 + this.int(0, 1);
        for (let i = 0; i < extra; i++) {
          const kind = weighted(this.random, OP_WEIGHTS);
          if (!SOLO_OPS.has(kind)) step.ops.push(this.planOp(kind));
        }
      }
      if (this.random() < FAULT_PROBABILITY) step.fault = this.planFault(weighted(this.random, FAULT_WEIGHTS));
    }
    this.hash = createHash('sha256').update(this.hash).update(JSON.stringify(step)).digest('hex');
    return { step, hash: this.hash };
  }

  private int(min: number, max: number): number {
    return min + Math.floor(this.random() * (max - min + 1));
  }

  private pick<T>(values: readonly T[]): T {
    return values[Math.floor(this.random() * values.length)]!;
  }

  private usd(min: number, max: number, decimals: number): string {
    const scale = 10 ** decimals;
    const value = this.int(min * scale, max * scale);
    return (value / scale).toFixed(decimals).replace(/\.?0+$/, '');
  }

  private event(options: { model?: string; backdated?: boolean; cached?: boolean; now?: boolean } = {}): PlannedEvent {
    const n = this.eventCounter++;
    const event_id = `soak${this.seed}-e${n}`;
    this.plannedEventIds.push(event_id);
    const prompt = this.int(1, 4000);
    const completion = this.int(1, 2000);
    const backdated = options.backdated ?? this.random() < 0.15;
    const months = BACKDATED_MONTHS.slice(this.archivedThrough);
    const when =
      backdated && months.length > 0 && options.model !== LATE_MODEL
        ? { at: `${this.pick(months)}-${String(this.int(1, 28)).padStart(2, '0')}T${String(this.int(0, 23)).padStart(2, '0')}:${String(this.int(0, 59)).padStart(2, '0')}:00.000Z` }
        : { offset_ms: (options.now ? 0 : this.clockOffsetMs) - this.int(0, 5_000) };
    return {
      event_id,
      user_id: this.pick(USERS),
      contributor_id: this.pick(CONTRIBUTORS).id,
      model: options.model ?? (this.random() < 0.1 ? LATE_MODEL : this.pick(PRICED_MODELS)),
      when,
      usage: { prompt, completion, cached: options.cached === false ? 0 : this.int(0, Math.floor(prompt / 2)) },
    };
  }

  private planOp(kind: Exclude<OpKind, 'drain'>): PlannedOp {
    const api = this.int(0, 1);
    switch (kind) {
      case 'single':
        return { op: 'single', api, event: this.event() };
      case 'batch':
        return { op: 'batch', api, events: Array.from({ length: this.int(2, 40) }, () => this.event()) };
      case 'stream':
      case 'response': {
        // Every wire format (real recorded bodies, usage rewritten), with `format` or detected.
        const format = this.pick(STREAM_FORMATS);
        const detect = this.random() < 0.5;
        const cached = kind === 'response' || STREAM_FIXTURES[format].cached;
        return { op: kind, api, format, detect, event: this.event({ cached: cached ? undefined : false }) };
      }
      case 'budget_holds':
        return this.budgetHolds();
      case 'queue':
        return { op: 'queue', event: this.event() };
      case 'litellm_push': {
        const litellm_id = `soak${this.seed}-ll${this.otherCounter++}`;
        return { op: 'litellm_push', api, litellm_id, event: { ...this.event({ cached: false, backdated: false }), event_id: `litellm:${litellm_id}` } };
      }
      case 'litellm_pull': {
        const litellm_id = `soak${this.seed}-ll${this.otherCounter++}`;
        return { op: 'litellm_pull', litellm_id, also_push: this.random() < 0.3, event: { ...this.event({ cached: false, backdated: false }), event_id: `litellm:${litellm_id}` } };
      }
      case 'sdk_report':
        return { op: 'sdk_report', event: this.event() };
      case 'hold_capture':
        return { op: 'hold_capture', api, hold_id: `soak${this.seed}-h${this.holdCounter++}`, amount_usd: this.usd(0.05, 1, 2), event: this.event({ backdated: false }) };
      case 'hold_release':
        return { op: 'hold_release', api, hold_id: `soak${this.seed}-h${this.holdCounter++}`, user_id: this.pick(USERS), amount_usd: this.usd(1, 50, 2) };
      case 'hold_race':
        return { op: 'hold_race', user_id: this.pick(USERS), hold_ids: Array.from({ length: 4 }, () => `soak${this.seed}-h${this.holdCounter++}`), share_percent: this.int(30, 45) };
      case 'credit':
        return this.credit();
      case 'auto_topup':
        return {
          op: 'auto_topup',
          user_id: this.pick(USERS),
          enabled: this.random() < 0.85,
          // Relative to the user's available balance when the op runs: above it asks at once.
          below_offset_usd: this.signedUsd(-0.3, 0.5),
          amount_usd: this.usd(0.05, 1, 2),
          max_per_month_usd: this.usd(0, 4, 2),
        };
      case 'balance_alerts':
        return { op: 'balance_alerts', user_id: this.pick(USERS), offsets_usd: this.random() < 0.15 ? [] : Array.from({ length: this.int(1, 3) }, () => this.signedUsd(-0.5, 0.5)) };
      case 'topup_answer':
        return { op: 'topup_answer', answers: Array.from({ length: this.int(1, 3) }, () => weighted<TopupAnswer>(this.random, [['credit', 6], ['fail', 2], ['leave', 2]])) };
      case 'refund': {
        // Two refunds of one event in one step would race the soak's own arithmetic: one per event.
        const candidates = this.plannedEventIds.slice(0, this.refundableCount);
        let event_id = candidates.length > 0 ? this.pick(candidates) : `soak${this.seed}-none`;
        if (this.refundedThisStep.has(event_id)) event_id = `soak${this.seed}-none`;
        this.refundedThisStep.add(event_id);
        return { op: 'refund', event_id, refund_id: `soak${this.seed}-r${this.otherCounter++}`, part: this.random() < 0.5 ? 'full' : 'half' };
      }
      case 'price_change':
        return { op: 'price_change', model: this.pick(PRICED_MODELS), input_usd_per_mtok: this.usd(0, 20, 6), output_usd_per_mtok: this.usd(0, 60, 6), cached_input_usd_per_mtok: this.usd(0, 5, 6) };
      case 'late_price':
        if (this.latePriced) return { op: 'reprice' };
        this.latePriced = true;
        return { op: 'late_price' };
      case 'reprice':
        return { op: 'reprice' };
      case 'address_change': {
        const contributor = this.pick(CONTRIBUTORS).id;
        const key_index = (this.addressKeys.get(contributor) ?? 0) + 1;
        this.addressKeys.set(contributor, key_index);
        return { op: 'address_change', contributor_id: contributor, key_index };
      }
      case 'settlement':
        return { op: 'settlement' };
      case 'approve':
        return { op: 'approve' };
      case 'partition':
        return { op: 'partition', month: this.pick(BACKDATED_MONTHS.slice(this.archivedThrough).length > 0 ? BACKDATED_MONTHS.slice(this.archivedThrough) : BACKDATED_MONTHS) };
      case 'archive': {
        // Keeps the last backdated month open for events; the cut moves forward one month at a time.
        if (this.archivedThrough >= BACKDATED_MONTHS.length - 1) return { op: 'reprice' };
        this.archivedThrough += 1;
        return { op: 'archive', before: BACKDATED_MONTHS[this.archivedThrough]! };
      }
      case 'webhook_mode':
        return { op: 'webhook_mode', receiver: this.pick(['flaky-slow', 'flaky-dead'] as const), mode: this.pick(['ok', 'slow', 'dead', 'error'] as const) };
    }
  }

  /** A signed amount in USD with two decimals, distinct thresholds by construction of the cents. */
  private signedUsd(min: number, max: number): string {
    const cents = this.int(Math.round(min * 100), Math.round(max * 100));
    return (cents / 100).toFixed(2);
  }

  /**
   * A credit: plain purchased credit, a grant (60% expiring within the soak, in tens of seconds),
   * an invalid grant the service must refuse (400, nothing written), or a replay of an earlier
   * credit's reference with another amount (409).
   */
  private credit(): PlannedOp {
    const user_id = this.pick(USERS);
    const reference = `soak${this.seed}-credit${this.otherCounter++}`;
    const roll = this.random();
    if (roll < 0.07 && this.creditableCount > 0) {
      const conflict_of = this.plannedCredits[Math.floor(this.random() * this.creditableCount)]!;
      return { op: 'credit', user_id, reference: conflict_of, amount_usd: this.usd(0.01, 1, 6), conflict_of };
    }
    const grant = (): PlannedGrant => ({
      expires_in_ms: this.random() < 0.6 ? this.int(...GRANT_SOON_MS) : this.int(GRANT_FAR_DAYS[0] * DAY_MS, GRANT_FAR_DAYS[1] * DAY_MS),
      name: `soak grant ${this.otherCounter}`,
    });
    if (roll < 0.17) {
      const invalid = this.pick(['past_expiry', 'negative_amount', 'blank_name', 'too_far'] as const);
      const g = grant();
      const bad: PlannedGrant =
        invalid === 'past_expiry' ? { ...g, expires_in_ms: -this.int(1_000, 3_600_000) }
        : invalid === 'too_far' ? { ...g, expires_in_ms: 731 * DAY_MS + this.int(0, DAY_MS) }
        : invalid === 'blank_name' ? { ...g, name: ' '.repeat(this.int(1, 3)) }
        : g;
      return { op: 'credit', user_id, reference, amount_usd: invalid === 'negative_amount' ? `-${this.usd(0.01, 2, 2)}` : this.usd(0.05, 3, 2), grant: bad, invalid };
    }
    this.plannedCredits.push(reference);
    if (roll < 0.6) return { op: 'credit', user_id, reference, amount_usd: this.usd(0.05, 3, 2), grant: grant() };
    // Small enough that a top-up threshold just above the balance can be crossed again.
    return { op: 'credit', user_id, reference, amount_usd: this.usd(0.1, 5, 6) };
  }

  /**
   * A key of a user, its budgets (re)set (one on the key, one on the key and a model; block or
   * notify, any period), then 2-4 holds naming the key at once, each captured by an event naming
   * the key and its model (at the present, not the soak's clock) or released.
   */
  private budgetHolds(): PlannedOp {
    const user_id = this.pick(USERS);
    const keyIndex = this.int(0, BUDGET_KEYS_PER_USER - 1);
    const key_id = `soak${this.seed}-key-${user_id}-${keyIndex}`;
    const model = this.pick(PRICED_MODELS);
    const budget = (suffix: string, scopedModel: string | null): PlannedBudget => ({
      budget_id: `${key_id}-${suffix}`,
      limit_usd: this.usd(0.2, 3, 2),
      period: this.pick(['day', 'week', 'month', 'total'] as const),
      model: scopedModel,
      action: this.random() < 0.8 ? 'block' : 'notify',
    });
    const budgets = [budget('key', null), budget('model', model)];
    const holds = Array.from({ length: this.int(2, 4) }, () => {
      const holdModel = this.random() < 0.7 ? model : this.pick(PRICED_MODELS);
      return {
        hold_id: `soak${this.seed}-h${this.holdCounter++}`,
        amount_usd: this.usd(0.01, 0.6, 2),
        model: holdModel,
        // The hold's user: a hold is captured only by an event of its own user.
        capture: this.random() < 0.6 ? { ...this.event({ model: holdModel, backdated: false, now: true }), user_id } : null,
      };
    });
    return { op: 'budget_holds', user_id, key_id, budgets, holds };
  }

  private planFault(kind: FaultKind): PlannedFault {
    const delay_ms = this.int(0, 300);
    switch (kind) {
      case 'kill_api':
        return { fault: 'kill_api', index: this.int(0, 1), delay_ms };
      case 'kill_worker':
        return { fault: 'kill_worker', index: this.int(0, 1), delay_ms };
      case 'kill_sdk':
        return { fault: 'kill_sdk', delay_ms };
      case 'restart_postgres':
        return { fault: 'restart_postgres', how: this.random() < 0.5 ? 'fast' : 'crash', delay_ms };
      case 'restart_redis':
        return { fault: 'restart_redis', delay_ms };
      case 'anvil_reorg':
        return { fault: 'anvil_reorg', depth: this.int(1, 3), delay_ms };
      case 'clock_step':
        this.clockOffsetMs = this.int(CLOCK_OFFSET_MIN_MS, CLOCK_OFFSET_MAX_MS);
        return { fault: 'clock_step', offset_ms: this.clockOffsetMs, delay_ms };
    }
  }
}
