// The usage audit's statistics (api.md "Contributor trust": usage audit). Pure.
//
// Per contributor and model the audit keeps the ratio reported / counted completion tokens of each
// audited stream. A tokenizer of another family, or the few framing tokens a provider adds, bias
// every contributor of a model alike, so a contributor is compared with its model's *other*
// contributors, never with 1.0: flagged when its median ratio exceeds the median of the others'
// medians by more than USAGE_AUDIT_THRESHOLD (relative) and by more than USAGE_AUDIT_MAD_MULTIPLE
// scaled MADs of the others' medians (their spread: how far an honest contributor may sit).

/** A contributor counts as a reference for its model once it has this many audited events. */
export const REFERENCE_EVENTS_MIN = 10;
/** The MAD of a normal sample times this estimates its standard deviation. */
export const MAD_TO_SIGMA = 1.4826;

export interface RatioGroup {
  contributorId: string;
  model: string;
  /** Audited events counted (after the contributor's last clear). */
  events: number;
  medianRatio: number;
}

export interface AuditRules {
  minEvents: number;
  /** 0.10: 10% above the model's median. */
  threshold: number;
  madMultiple: number;
}

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
      group.events >= rules.minEvents && excess > rules.threshold * modelMedianRatio && excess > rules.madMultiple * MAD_TO_SIGMA * mad(others);
    return { ...group, modelMedianRatio, flagged };
  });
}
