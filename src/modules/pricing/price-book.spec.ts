import fc from 'fast-check';
import { createPriceBook, summarizeCatalog } from './price-book.js';
import { NO_EXTRA_PRICES, type PriceVersion } from './pricing.types.js';

const ATTO = 10n ** 18n;
let nextId = 1n;
function version(model: string, effectiveFrom: string, inputUsd: bigint, variant = 'standard'): PriceVersion {
  return {
    id: nextId++,
    model,
    inputAttoPerMtok: inputUsd * ATTO,
    outputAttoPerMtok: 4n * inputUsd * ATTO,
    cachedInputAttoPerMtok: null,
    ...NO_EXTRA_PRICES,
    variant,
    effectiveFrom: new Date(effectiveFrom),
  };
}

describe('createPriceBook / priceAt', () => {
  // Deliberately unsorted input: the book sorts per model.
  const v2 = version('gpt-4o', '2026-06-01T00:00:00.000Z', 3n);
  const v1 = version('gpt-4o', '2026-01-01T00:00:00.000Z', 2n);
  const v3 = version('gpt-4o', '2026-12-01T00:00:00.000Z', 4n);
  const other = version('claude', '2026-03-01T00:00:00.000Z', 9n);
  const book = createPriceBook([v2, other, v3, v1]);

  it('has no price before the first version', () => {
    expect(book.priceAt('gpt-4o', new Date('2025-12-31T23:59:59.999Z'))).toBeNull();
  });

  it('applies a version from exactly its effective_from on', () => {
    expect(book.priceAt('gpt-4o', new Date('2026-01-01T00:00:00.000Z'))).toBe(v1);
    expect(book.priceAt('gpt-4o', new Date('2026-06-01T00:00:00.000Z'))).toBe(v2);
  });

  it('keeps a superseded version for instants before its successor', () => {
    expect(book.priceAt('gpt-4o', new Date('2026-05-31T23:59:59.999Z'))).toBe(v1);
    expect(book.priceAt('gpt-4o', new Date('2026-11-30T23:59:59.999Z'))).toBe(v2);
  });

  it('uses the latest version forever after', () => {
    expect(book.priceAt('gpt-4o', new Date('2099-01-01T00:00:00.000Z'))).toBe(v3);
  });

  it('keeps models apart and knows no unknown model', () => {
    expect(book.priceAt('claude', new Date('2026-06-01T00:00:00.000Z'))).toBe(other);
    expect(book.priceAt('gpt-4', new Date('2026-06-01T00:00:00.000Z'))).toBeNull();
    expect(book.versionsOf('gpt-4o')).toEqual([v1, v2, v3]);
    expect(book.versionsOf('nope')).toEqual([]);
    expect(book.models()).toEqual(['claude', 'gpt-4o']);
    expect(book.versionCount).toBe(4);
  });

  it('refuses two versions of one model at the same instant (a broken invariant)', () => {
    expect(() => createPriceBook([v1, { ...v1, id: 99n }])).toThrow(/same effective_from/);
  });

  it('agrees with a linear scan for any set of versions and instants', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 1_000 }), { minLength: 0, maxLength: 30 }),
        fc.array(fc.integer({ min: -10, max: 1_010 }), { minLength: 1, maxLength: 20 }),
        (instants, probes) => {
          const versions = instants.map((ms, i) => ({ ...version('m', new Date(ms).toISOString(), BigInt(i)), effectiveFrom: new Date(ms) }));
          const shuffled = createPriceBook([...versions].reverse());
          for (const probe of probes) {
            const expected = versions.filter((v) => v.effectiveFrom.getTime() <= probe).sort((a, b) => b.effectiveFrom.getTime() - a.effectiveFrom.getTime())[0] ?? null;
            expect(shuffled.priceAt('m', new Date(probe))).toBe(expected);
          }
        },
      ),
    );
  });
});

describe('summarizeCatalog', () => {
  it('lists the version in force per model with the next scheduled one, and future-only models apart', () => {
    const past = version('a', '2026-01-01T00:00:00.000Z', 1n);
    const future = version('a', '2027-01-01T00:00:00.000Z', 2n);
    const later = version('a', '2028-01-01T00:00:00.000Z', 3n);
    const onlyFuture = version('b', '2027-06-01T00:00:00.000Z', 5n);
    const single = version('c', '2025-01-01T00:00:00.000Z', 7n);
    const summary = summarizeCatalog(createPriceBook([later, future, past, onlyFuture, single]), new Date('2026-11-29T00:00:00Z'));
    expect(summary.inForce).toEqual([
      { current: past, next: future },
      { current: single, next: null },
    ]);
    expect(summary.upcoming).toEqual([onlyFuture]);
  });
});
