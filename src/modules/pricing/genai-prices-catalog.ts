// The catalog bundled in @pydantic/genai-prices and the name resolution it uses itself: a
// "provider/model" name picks the provider by its prefix (as its `litellm` provider id does),
// a bare name by the providers' model_match; the model is the provider's first whose `match`
// matches, then the providers it falls back to. Reads the bundled data only, never the network.
import { waitForUpdate, type MatchLogic, type ModelInfo, type Provider } from '@pydantic/genai-prices';
import type { GenaiTarget } from './genai-prices-plan.js';

/** The package's bundled providers (waitForUpdate resolves to them unless updatePrices was called, which this service never does). */
export async function bundledGenaiProviders(): Promise<readonly Provider[]> {
  const providers = await waitForUpdate();
  if (!Array.isArray(providers)) throw new Error('@pydantic/genai-prices has no bundled price data');
  return providers;
}

export function resolveGenaiModel(providers: readonly Provider[], name: string): { provider: Provider; model: ModelInfo } | null {
  let modelId = name.toLowerCase().trim();
  let provider: Provider | undefined;
  const slash = modelId.indexOf('/');
  if (slash > 0) {
    const byPrefix = findProviderById(providers, modelId.slice(0, slash));
    if (byPrefix) {
      provider = byPrefix;
      modelId = modelId.slice(slash + 1);
    }
  }
  provider ??= providers.find((p) => p.model_match !== undefined && matches(p.model_match, modelId));
  if (!provider) return null;
  const model = findModel(providers, provider, modelId) ?? findModel(providers, provider, withDashedDates(modelId));
  return model ? { provider, model } : null;
}

/** "claude-3-5-sonnet-20241022" is also tried as "claude-3-5-sonnet-2024-10-22", as genai-prices does. */
function withDashedDates(modelId: string): string {
  return modelId.replace(/(-)(20\d{2})(0[1-9]|1[0-2])(0[1-9]|[12]\d|3[01])(?=-|:|$)/g, (whole: string, dash: string, year: string, month: string, day: string) => {
    const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
    return date.getUTCDate() === Number(day) ? `${dash}${year}-${month}-${day}` : whole;
  });
}

/** Targets for the names this service prices; names genai-prices does not know are left out. */
export function genaiTargets(providers: readonly Provider[], names: Iterable<string>): { targets: GenaiTarget[]; unknown: string[] } {
  const targets: GenaiTarget[] = [];
  const unknown: string[] = [];
  for (const name of names) {
    const resolved = resolveGenaiModel(providers, name);
    if (resolved) targets.push({ model: name, info: resolved.model as GenaiTarget['info'] });
    else unknown.push(name);
  }
  return { targets, unknown };
}

function findProviderById(providers: readonly Provider[], id: string): Provider | undefined {
  return providers.find((p) => p.id === id) ?? providers.find((p) => p.provider_match !== undefined && matches(p.provider_match, id));
}

function findModel(providers: readonly Provider[], provider: Provider, modelId: string, depth = 0): ModelInfo | undefined {
  const own = provider.models.find((m) => matches(m.match, modelId));
  if (own || depth > 0) return own;
  for (const fallbackId of provider.fallback_model_providers ?? []) {
    const fallback = providers.find((p) => p.id === fallbackId);
    const model = fallback && findModel(providers, fallback, modelId, depth + 1);
    if (model) return model;
  }
  return undefined;
}

/** genai-prices' match logic: case-insensitive string tests, combined with and/or. */
export function matches(logic: MatchLogic, text: string): boolean {
  const lower = text.toLowerCase();
  if ('or' in logic) return logic.or.some((l) => matches(l, text));
  if ('and' in logic) return logic.and.every((l) => matches(l, text));
  if ('equals' in logic) return lower === logic.equals.toLowerCase();
  if ('starts_with' in logic) return lower.startsWith(logic.starts_with.toLowerCase());
  if ('ends_with' in logic) return lower.endsWith(logic.ends_with.toLowerCase());
  if ('contains' in logic) return lower.includes(logic.contains.toLowerCase());
  if ('regex' in logic) return new RegExp(logic.regex).test(text);
  return false;
}
