import fc from 'fast-check';
import { getAddress, type Address } from 'viem';
import type { PayeeState } from '../../contributors/contributors.types.js';
import { payeeRefusal } from './payee-screen.js';

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(`0x${Buffer.from(bytes).toString('hex')}`));

describe('payeeRefusal', () => {
  it('sends a line only to an active payee whose current address is the line address and is not refused', () => {
    fc.assert(
      fc.property(
        address,
        address,
        fc.constantFrom('active', 'suspended' as const),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.constantFrom('payout_address_refused', 'payout_address_denylisted' as const)),
        (lineAddress, otherAddress, status, registered, sameAddress, refusedKind) => {
          const current: Address = sameAddress ? lineAddress : otherAddress;
          const payee: PayeeState | undefined = registered ? { id: 'c', status, payoutAddress: current, flaggedReason: null, payoutAddressProvenAt: null, payoutAddressChangedAt: null, underReviewSince: null } : undefined;
          const screened: string[] = [];
          const screen = (a: string) => {
            screened.push(a);
            return refusedKind ? { kind: refusedKind, reason: 'refused' } : null;
          };
          // A lower-case line address is the same address.
          const result = payeeRefusal({ contributorId: 'c', payoutAddress: lineAddress.toLowerCase() as Address }, payee, screen);
          const moved = lineAddress !== current;
          if (!registered || status !== 'active') expect(result?.reason).toBe('contributor_suspended');
          else if (moved) expect(result?.reason).toBe('payout_address_changed');
          else if (refusedKind) expect(result).toEqual({ reason: refusedKind, detail: 'refused' });
          else expect(result).toBeNull();
          if (result === null) expect(screened).toHaveLength(1);
        },
      ),
    );
  });

  it('with the trust rules: under review, then unproven, then cooling down; each only when configured', () => {
    const hour = 3600_000;
    fc.assert(
      fc.property(
        address,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.integer({ min: -100, max: 100 })),
        fc.boolean(),
        fc.integer({ min: 0, max: 48 }),
        fc.boolean(),
        (lineAddress, proofRequired, proven, auditHold, changedHoursAgo, underReview, cooldownHours, denylisted) => {
          const now = new Date('2026-12-02T12:00:00.000Z');
          const changedAt = changedHoursAgo === null ? null : new Date(now.getTime() - changedHoursAgo * hour);
          const payee: PayeeState = {
            id: 'c',
            status: 'active',
            payoutAddress: lineAddress,
            flaggedReason: null,
            payoutAddressProvenAt: proven ? new Date(0) : null,
            payoutAddressChangedAt: changedAt,
            underReviewSince: underReview ? new Date(0) : null,
          };
          const screen = () => (denylisted ? { kind: 'payout_address_denylisted' as const, reason: 'listed' } : null);
          const result = payeeRefusal({ contributorId: 'c', payoutAddress: lineAddress }, payee, screen, { proofRequired, cooldownHours, auditHold, now });
          const cooling = cooldownHours > 0 && changedHoursAgo !== null && changedHoursAgo < cooldownHours;
          const expected = denylisted
            ? 'payout_address_denylisted'
            : auditHold && underReview
              ? 'under_review'
              : proofRequired && !proven
                ? 'address_unproven'
                : cooling
                  ? 'address_cooling_down'
                  : null;
          expect(result?.reason ?? null).toBe(expected);
        },
      ),
    );
  });

  it('pays a changed address exactly from its change plus the cool-down on', () => {
    const changedAt = new Date('2026-12-01T00:00:00.000Z');
    const payee: PayeeState = { id: 'c', status: 'active', payoutAddress: getAddress(`0x${'11'.repeat(20)}`), flaggedReason: null, payoutAddressProvenAt: null, payoutAddressChangedAt: changedAt, underReviewSince: null };
    const rules = (now: string) => ({ proofRequired: false, cooldownHours: 24, auditHold: false, now: new Date(now) });
    const line = { contributorId: 'c', payoutAddress: payee.payoutAddress };
    expect(payeeRefusal(line, payee, () => null, rules('2026-12-01T23:59:59.999Z'))?.reason).toBe('address_cooling_down');
    expect(payeeRefusal(line, payee, () => null, rules('2026-12-02T00:00:00.000Z'))).toBeNull();
  });
});
