// The usage audit's statistics (api.md "Contributor trust": usage audit). Pure.
//
// Per contributor and model the audit keeps the ratio reported / counted completion tokens of each
// audited stream. A tokenizer of another family, or the few framing tokens a provider adds, bias
// every contributor of a model alike, so a contributor is compared with its model's *other*
// contributors, never with 1.0: flagged when its median ratio exceeds the median of the others'
// medians by more than USAGE_AUDIT_THRESHOLD (relative) and by more than USAGE_AUDIT_MAD_MULTIPLE
// times the noise: the scaled MAD of the others' medians (their spread: how far an honest
// contributor may sit), or the standard error of its own median if that is larger (few events of
// a ratio that varies widely per request).
//
// Three ratios go through that rule, each on its own (api.md "What a contributor's upstream claims
// is not believed past what the gateway asked"): completion (reported / counted completion tokens),
// prompt (reported prompt tokens / the gateway's own count, which must also exceed 1 by more than
// USAGE_AUDIT_PROMPT_TOLERANCE) and reasoning (hidden reasoning tokens / counted visible output
// tokens: no one can count them, so only the comparison with the model's other contributors tells).

/** A contributor counts as a reference for its model once it has this many audited events. */
export const REFERENCE_EVENTS_MIN = 10;
/** The MAD of a normal sample times this estimates its standard deviation. */
export const MAD_TO_SIGMA = 1.4826;
/** The standard error of a sample median is about this times sigma / sqrt(n) (normal data). */
const MEDIAN_SE_FACTOR = 1.2533;

/**
 * The standard error of the excess of a group's median over the median of k others' medians, from
 * the group's own spread: its own median's error, and the reference's (about pi/2k of its square).
 */
export function excessStandardError(group: Pick<RatioGroup, 'events' | 'madRatio'>, others: number): number {
  if (!group.madRatio || group.events === 0) return 0;
  const own = (MEDIAN_SE_FACTOR * MAD_TO_SIGMA * group.madRatio) / Math.sqrt(group.events);
  return own * Math.sqrt(1 + Math.PI / (2 * Math.max(1, others)));
}

export interface RatioGroup {
  contributorId: string;
  model: string;
  /** Audited events counted (after the contributor's last clear). */
  events: number;
  medianRatio: number;
  /**
   * MAD of the group's own per-event ratios around its median (absent: not known, taken as 0).
   * Hidden reasoning varies widely from request to request, so a median of 50 such ratios is
   * itself uncertain by 10% and more: the noise band takes that standard error in too.
   */
  madRatio?: number;
}

export interface AuditRules {
  minEvents: number;
  /** 0.10: 10% above the model's median. */
  threshold: number;
  madMultiple: number;
  /** The median itself must exceed this too (prompt: 1 + USAGE_AUDIT_PROMPT_TOLERANCE; others: none). */
  medianAbove?: number;
}

/** The three audited ratios. */
export const AUDIT_RATIOS = ['completion', 'prompt', 'reasoning'] as const;
export type AuditRatio = (typeof AUDIT_RATIOS)[number];

export interface AuditVerdict extends RatioGroup {
  /** Median of the model's other reference contributors' medians; null when there is none. */
  modelMedianRatio: number | null;
  flagged: boolean;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median absolute deviation from the median (0 for fewer than two values). */
export function mad(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const center = median(values);
  return median(values.map((v) => Math.abs(v - center)));
}

/** One verdict per group: the group compared with its model's other contributors. */
export function auditVerdicts(groups: readonly RatioGroup[], rules: AuditRules): AuditVerdict[] {
  const byModel = new Map<string, RatioGroup[]>();
  for (const g of groups) byModel.set(g.model, [...(byModel.get(g.model) ?? []), g]);
  return groups.map((group) => {
    const others = (byModel.get(group.model) ?? []).filter((o) => o.contributorId !== group.contributorId && o.events >= REFERENCE_EVENTS_MIN).map((o) => o.medianRatio);
    if (others.length === 0) return { ...group, modelMedianRatio: null, flagged: false };
    const modelMedianRatio = median(others);
    const excess = group.medianRatio - modelMedianRatio;
    const flagged =
      group.events >= rules.minEvents &&
      excess > rules.threshold * modelMedianRatio &&
      excess > rules.madMultiple * Math.max(MAD_TO_SIGMA * mad(others), excessStandardError(group, others.length)) &&
      group.medianRatio > (rules.medianAbove ?? Number.NEGATIVE_INFINITY);
    return { ...group, modelMedianRatio, flagged };
  });
}

/** One contributor and model with, per ratio it has samples of, their count and median. */
export interface AuditRow {
  contributorId: string;
  model: string;
  ratios: Partial<Record<AuditRatio, { events: number; medianRatio: number; madRatio?: number }>>;
}

export interface RatioVerdict {
  events: number;
  medianRatio: number;
  modelMedianRatio: number | null;
  flagged: boolean;
}

export interface AuditRowVerdict {
  contributorId: string;
  model: string;
  ratios: Partial<Record<AuditRatio, RatioVerdict>>;
  /** Flagged by any ratio; which ones, in AUDIT_RATIOS order. */
  flagged: boolean;
  flaggedRatios: AuditRatio[];
}

/**
 * Every ratio judged on its own by auditVerdicts (against the same ratio of the model's other
 * contributors); a contributor is flagged for a model when any of its ratios is. The prompt ratio
 * must also exceed 1 + promptTolerance: the gateway's own count is a reference of its own.
 */
export function auditRows(rows: readonly AuditRow[], rules: AuditRules, promptTolerance: number): AuditRowVerdict[] {
  const byRatio = new Map<AuditRatio, Map<string, AuditVerdict>>();
  for (const ratio of AUDIT_RATIOS) {
    const groups: RatioGroup[] = [];
    for (const row of rows) {
      const stats = row.ratios[ratio];
      if (stats && stats.events > 0) groups.push({ contributorId: row.contributorId, model: row.model, ...stats });
    }
    const ratioRules = ratio === 'prompt' ? { ...rules, medianAbove: 1 + promptTolerance } : rules;
    byRatio.set(ratio, new Map(auditVerdicts(groups, ratioRules).map((v) => [`${v.contributorId}\u0000${v.model}`, v])));
  }
  return rows.map((row) => {
    const ratios: AuditRowVerdict['ratios'] = {};
    for (const ratio of AUDIT_RATIOS) {
      const verdict = byRatio.get(ratio)!.get(`${row.contributorId}\u0000${row.model}`);
      if (verdict) ratios[ratio] = { events: verdict.events, medianRatio: verdict.medianRatio, modelMedianRatio: verdict.modelMedianRatio, flagged: verdict.flagged };
    }
    const flaggedRatios = AUDIT_RATIOS.filter((ratio) => ratios[ratio]?.flagged === true);
    return { contributorId: row.contributorId, model: row.model, ratios, flagged: flaggedRatios.length > 0, flaggedRatios };
  });
}
