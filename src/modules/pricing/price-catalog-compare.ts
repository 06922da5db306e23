// Where two catalogs disagree for the same model name: LiteLLM's standard version against the
// genai-prices version in force at a given instant (docs/pricing.md, "LiteLLM and genai-prices").
// Pure; used by scripts/compare-price-catalogs.ts and its spec.
import { PRICE_KINDS, formatMicroUsdPerMtok, formatPicoUsd, type PriceKind, type VersionDraft } from './catalog-price-body.js';

export type Disagreement =
  | { model: string; what: 'price'; kind: PriceKind; litellm: string; genai: string }
  | { model: string; what: 'only_litellm' | 'only_genai'; kind: PriceKind; price: string }
  | { model: string; what: 'tiers'; litellm: string; genai: string }
  | { model: string; what: 'web_search' | 'request_fee'; litellm: string; genai: string };

/** The version of each model in force at `at` (the latest effectiveFrom <= at; undated ones count as always). */
export function inForceAt(versions: readonly VersionDraft[], at: Date): Map<string, VersionDraft> {
  const byModel = new Map<string, VersionDraft>();
  for (const version of versions) {
    const from = version.effectiveFrom?.getTime() ?? Number.NEGATIVE_INFINITY;
    if (from > at.getTime()) continue;
    const current = byModel.get(version.model);
    if (!current || (current.effectiveFrom?.getTime() ?? Number.NEGATIVE_INFINITY) <= from) byModel.set(version.model, version);
  }
  return byModel;
}

export function compareVersions(litellm: VersionDraft, genai: VersionDraft): Disagreement[] {
  const model = litellm.model;
  const found: Disagreement[] = [];
  for (const kind of PRICE_KINDS) {
    const ours = litellm.prices[kind];
    const theirs = genai.prices[kind];
    if (ours === theirs) continue;
    if (ours !== undefined && theirs !== undefined) found.push({ model, what: 'price', kind, litellm: formatMicroUsdPerMtok(ours), genai: formatMicroUsdPerMtok(theirs) });
    else if (ours !== undefined) found.push({ model, what: 'only_litellm', kind, price: formatMicroUsdPerMtok(ours) });
    else if (theirs !== undefined) found.push({ model, what: 'only_genai', kind, price: formatMicroUsdPerMtok(theirs as bigint) });
  }
  const tiers = (v: VersionDraft) =>
    v.tiers.map((t) => `>${t.aboveInputTokens}: ${PRICE_KINDS.filter((k) => t.prices[k] !== undefined).map((k) => `${k} ${formatMicroUsdPerMtok(t.prices[k] as bigint)}`).join(', ')}`).join('; ') || 'none';
  if (tiers(litellm) !== tiers(genai)) found.push({ model, what: 'tiers', litellm: tiers(litellm), genai: tiers(genai) });
  const search = (v: VersionDraft) => (v.webSearch ? `${formatPicoUsd(v.webSearch.feePicoUsd)} ${v.webSearch.billing}` : 'none');
  if (search(litellm) !== search(genai)) found.push({ model, what: 'web_search', litellm: search(litellm), genai: search(genai) });
  const request = (v: VersionDraft) => (v.requestFeePicoUsd === null ? 'none' : formatPicoUsd(v.requestFeePicoUsd));
  if (request(litellm) !== request(genai)) found.push({ model, what: 'request_fee', litellm: request(litellm), genai: request(genai) });
  return found;
}

export interface CatalogComparison {
  /** Models priced by both. */
  compared: number;
  /** Of those, models on which the two agree on everything. */
  agreeing: number;
  disagreements: Disagreement[];
}

export function compareCatalogs(input: { litellm: readonly VersionDraft[]; genai: readonly VersionDraft[]; at: Date }): CatalogComparison {
  const genaiNow = inForceAt(input.genai, input.at);
  let compared = 0;
  let agreeing = 0;
  const disagreements: Disagreement[] = [];
  for (const version of input.litellm) {
    if (version.variant !== 'standard') continue;
    const theirs = genaiNow.get(version.model);
    if (!theirs) continue;
    compared += 1;
    const found = compareVersions(version, theirs);
    if (found.length === 0) agreeing += 1;
    disagreements.push(...found);
  }
  return { compared, agreeing, disagreements };
}
