// Which variant a stream is billed at (api.md "Contributor trust" (1), pricing.md "Where usage
// comes from in a stream"): the upstream's service_tier is believed only when it is not dearer
// than the variant the gateway requested (price_variant, else standard). Pure.
import { serviceTierVariant } from './stream-usage.js';

export const STANDARD_VARIANT = 'standard';

/**
 * The service tiers, cheapest first (OpenAI, Anthropic and Groq name them alike): flex and batch
 * sell at about half of standard, priority and scale above it. Variants off this ladder (us, eu,
 * fast, low/medium/high ...) are another axis, which a service_tier cannot lower.
 */
const TIER_RANK: Readonly<Record<string, number>> = Object.freeze({ batch: 0, flex: 0, standard: 1, priority: 2, scale: 2 });

export interface VariantDecision {
  /** The variant billed. */
  variant: string;
  /** The dearer variant the upstream claimed and was not billed, or null. */
  claimed: string | null;
}

/**
 * - no tier, or the tier requested: the requested variant;
 * - a cheaper tier (flex served for a standard request): that tier;
 * - a dearer tier, or a tier name not on the ladder: the requested variant, marked claimed;
 * - a request off the ladder (eu, us ...): the requested variant; a tier above standard beside it
 *   is marked claimed.
 */
export function billedVariant(requested: string | undefined, serviceTier: string | null): VariantDecision {
  const asked = requested ?? STANDARD_VARIANT;
  if (serviceTier === null) return { variant: asked, claimed: null };
  const served = serviceTierVariant(serviceTier);
  if (served === asked) return { variant: asked, claimed: null };
  const servedRank = rankOf(served);
  const askedRank = rankOf(asked);
  if (askedRank === null) return { variant: asked, claimed: servedRank !== null && servedRank > TIER_RANK.standard! ? served : null };
  if (servedRank === null || servedRank > askedRank) return { variant: asked, claimed: served };
  return servedRank < askedRank ? { variant: served, claimed: null } : { variant: asked, claimed: null };
}

function rankOf(variant: string): number | null {
  return Object.hasOwn(TIER_RANK, variant) ? TIER_RANK[variant]! : null;
}
