import { createPriceBook } from './price-book.js';
import { planHistoryWrites, type DatedDraft } from './price-history-writes.js';
import type { PriceRecord } from './pricing.repository.js';
import { NO_EXTRA_PRICES } from './pricing.types.js';

const ATTO = 10n ** 18n;
const day = (text: string) => new Date(`${text}T00:00:00.000Z`);

function draft(model: string, from: string, inputUsdPerMtok: number, variant = 'standard'): DatedDraft {
  return { ...NO_EXTRA_PRICES, model, variant, effectiveFrom: day(from), inputAttoPerMtok: BigInt(inputUsdPerMtok) * ATTO, outputAttoPerMtok: 4n * ATTO, cachedInputAttoPerMtok: null };
}

let nextId = 1n;
function stored(source: string, d: DatedDraft): PriceRecord {
  nextId += 1n;
  return { ...d, id: nextId, source, createdAt: day('2026-12-01') };
}

describe('planHistoryWrites', () => {
  it('fills in only the past before another source, once, and never duplicates a version', () => {
    const book = createPriceBook([
      stored('litellm', draft('m', '2026-07-24', 3)),
      stored('genai-prices', draft('m', '2020-01-01', 5)),
      stored('api', draft('other', '2026-01-01', 1)),
    ]);
    const writes = planHistoryWrites({
      source: 'genai-prices',
      book,
      planned: [
        draft('m', '2026-03-13', 3), // new, before the LiteLLM version: written
        draft('m', '2020-01-01', 5), // already there, same terms
        draft('m', '2026-07-24', 3), // at the LiteLLM version's instant: LiteLLM wins
        draft('m', '2027-01-01', 9), // after it
        draft('other', '2025-01-01', 1),
        draft('other', '2025-06-01', 1), // the same terms as the version it would follow
        draft('fresh', '2020-01-01', 2), // a model priced by nothing else: all of its history
        draft('fresh', '2027-01-01', 7),
        draft('m', '2020-01-01', 6, 'flex'), // another variant is its own history
      ],
    });
    expect(writes.insert.map((d) => `${d.model}|${d.variant}|${d.effectiveFrom.toISOString().slice(0, 10)}`)).toEqual([
      'fresh|standard|2020-01-01',
      'fresh|standard|2027-01-01',
      'm|flex|2020-01-01',
      'm|standard|2026-03-13',
      'other|standard|2025-01-01',
    ]);
    expect(writes).toMatchObject({ unchanged: 2, superseded: 2, conflicts: [] });
  });

  it('reports a different version at the same instant as a conflict (versions are immutable)', () => {
    const book = createPriceBook([stored('genai-prices', draft('m', '2020-01-01', 5))]);
    const writes = planHistoryWrites({ source: 'genai-prices', book, planned: [draft('m', '2020-01-01', 6)] });
    expect(writes.insert).toEqual([]);
    expect(writes.conflicts).toEqual([{ model: 'm', variant: 'standard', code: 'conflict', reason: 'a different version already starts at 2020-01-01T00:00:00.000Z (versions are immutable)' }]);
  });
});
