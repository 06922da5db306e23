import { createTierBook } from './tier-book.js';
import type { TierVersion } from './contributors.types.js';

const EPOCH = new Date('1970-01-01T00:00:00.000Z');
function row(id: bigint, contributorId: string, tier: TierVersion['tier'], effectiveFrom: Date | string): TierVersion {
  return { id, contributorId, tier, effectiveFrom: new Date(effectiveFrom) };
}

describe('createTierBook / tierAt', () => {
  const upgradeAt = '2026-11-29T10:00:00.000Z';
  const book = createTierBook([
    row(3n, 'c1', 'standard', '2026-12-01T00:00:00.000Z'),
    row(1n, 'c1', 'standard', EPOCH),
    row(2n, 'c1', 'premium', upgradeAt),
    row(4n, 'c2', 'premium', EPOCH),
  ]);

  it('knows no unregistered contributor', () => {
    expect(book.tierAt('nobody', new Date())).toBeNull();
    expect(book.contributorCount).toBe(2);
  });

  it('prices late events that occurred before registration with the first tier (epoch start)', () => {
    expect(book.tierAt('c2', new Date('2001-01-01T00:00:00Z'))).toBe('premium');
  });

  it('applies a tier change from exactly its instant on, and keeps the old tier before it', () => {
    expect(book.tierAt('c1', new Date(new Date(upgradeAt).getTime() - 1))).toBe('standard');
    expect(book.tierAt('c1', new Date(upgradeAt))).toBe('premium');
    expect(book.tierAt('c1', new Date('2026-11-30T00:00:00Z'))).toBe('premium');
    expect(book.tierAt('c1', new Date('2027-01-01T00:00:00Z'))).toBe('standard');
  });

  // Issue 14 item 9: an occurred_at before 1970 was answered 422 unknown_contributor.
  it('gives a registered contributor its first tier before its first row (before 1970, back to year 1)', () => {
    expect(book.tierAt('c1', new Date('1969-12-31T23:59:59.999Z'))).toBe('standard');
    expect(book.tierAt('c2', new Date('0001-01-01T00:00:00Z'))).toBe('premium');
    expect(book.tierAt('nobody', new Date('0001-01-01T00:00:00Z'))).toBeNull();
  });

  it('lets the later row win when two changes share an instant', () => {
    const same = createTierBook([row(8n, 'c', 'premium', upgradeAt), row(1n, 'c', 'standard', EPOCH), row(7n, 'c', 'standard', upgradeAt)]);
    expect(same.tierAt('c', new Date(upgradeAt))).toBe('premium');
  });
});
