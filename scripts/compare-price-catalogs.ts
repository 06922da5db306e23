// Where LiteLLM's catalog and @pydantic/genai-prices disagree, for the names both price:
//   npm run prices:compare -- [path/to/model_prices_and_context_window.json] [--at 2026-07-24] [--list]
// Prints counts per kind of disagreement (the table in docs/pricing.md) and, with --list, each one.
import { readFileSync } from 'node:fs';
import { bundledGenaiProviders, genaiTargets } from '../src/modules/pricing/genai-prices-catalog.js';
import { planGenaiPrices } from '../src/modules/pricing/genai-prices-plan.js';
import { parseLitellmDocument } from '../src/modules/pricing/litellm-import.js';
import { planLitellmCatalog } from '../src/modules/pricing/litellm-plan.js';
import { compareCatalogs } from '../src/modules/pricing/price-catalog-compare.js';

const DEFAULT_CATALOG = 'test/fixtures/prices/litellm-full/model_prices_and_context_window.json';
/** The full catalog fixture's last_updated. */
const DEFAULT_AT = '2026-07-24';

const args = process.argv.slice(2);
const atIndex = args.indexOf('--at');
const at = new Date(`${atIndex >= 0 ? args[atIndex + 1] : DEFAULT_AT}T00:00:00Z`);
const path = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--at') ?? DEFAULT_CATALOG;

const litellm = planLitellmCatalog(parseLitellmDocument(readFileSync(path, 'utf8')));
const names = new Set(litellm.versions.map((v) => v.model));
const { targets } = genaiTargets(await bundledGenaiProviders(), names);
const comparison = compareCatalogs({ litellm: litellm.versions, genai: planGenaiPrices(targets).versions, at });

const counts = new Map<string, Set<string>>();
for (const d of comparison.disagreements) {
  const key = 'kind' in d ? `${d.what} ${d.kind}` : d.what;
  counts.set(key, (counts.get(key) ?? new Set()).add(d.model));
}
console.log(`at ${at.toISOString().slice(0, 10)}: ${comparison.compared} models priced by both, ${comparison.agreeing} agree on everything`);
console.log('| disagreement | models |\n|---|---|');
for (const [key, models] of [...counts].sort((a, b) => b[1].size - a[1].size)) console.log(`| ${key} | ${models.size} |`);
if (args.includes('--list')) for (const d of comparison.disagreements) console.log(JSON.stringify(d));
