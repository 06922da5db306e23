import fc from 'fast-check';
import { spendDeltas, type SpendCharge } from './spend-deltas.js';

const charge: fc.Arbitrary<SpendCharge> = fc.record({
  userId: fc.constantFrom('u1', 'u2', 'u10'),
  // Around UTC midnights and a leap day, so days split at exactly 00:00:00.000Z.
  occurredAt: fc.integer({ min: Date.UTC(2024, 1, 28, 22), max: Date.UTC(2024, 2, 1, 2) }).map((ms) => new Date(ms)),
  keyId: fc.constantFrom(null, 'k1', 'k2'),
  model: fc.constantFrom('m1', 'm2'),
  chargeAtto: fc.bigInt({ min: 0n, max: 10n ** 24n }),
});

describe('spendDeltas', () => {
  it('sums every charge exactly once into its user, UTC day, key and model, in key order', () => {
    fc.assert(
      fc.property(fc.array(charge, { maxLength: 60 }), (charges) => {
        const deltas = spendDeltas(charges);
        // Each group's sum is the sum of the charges with that key, found independently.
        for (const d of deltas) {
          const expected = charges
            .filter((c) => c.userId === d.userId && c.occurredAt.toISOString().startsWith(d.day) && (c.keyId ?? '') === d.keyId && c.model === d.model)
            .reduce((sum, c) => sum + c.chargeAtto, 0n);
          expect(d.chargeAtto).toBe(expected);
        }
        expect(deltas.reduce((sum, d) => sum + d.chargeAtto, 0n)).toBe(charges.reduce((sum, c) => sum + c.chargeAtto, 0n));
        // One delta per key, in strictly increasing key order.
        const keys = deltas.map((d) => [d.userId, d.day, d.keyId, d.model].join('\u0000'));
        for (let i = 1; i < keys.length; i += 1) expect(keys[i - 1]! < keys[i]!).toBe(true);
        expect(new Set(deltas.map((d) => d.day)).size).toBeLessThanOrEqual(3);
      }),
    );
  });

  it('puts a charge at 23:59:59.999Z and one at 00:00:00.000Z on their own days', () => {
    const at = (iso: string): SpendCharge => ({ userId: 'u', occurredAt: new Date(iso), keyId: null, model: 'm', chargeAtto: 1n });
    expect(spendDeltas([at('2024-02-29T00:00:00.000Z'), at('2024-02-28T23:59:59.999Z'), at('2024-02-29T23:59:59.999Z')])).toEqual([
      { userId: 'u', day: '2024-02-28', keyId: '', model: 'm', chargeAtto: 1n },
      { userId: 'u', day: '2024-02-29', keyId: '', model: 'm', chargeAtto: 2n },
    ]);
  });
});
