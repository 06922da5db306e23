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
          const payee: PayeeState | undefined = registered ? { id: 'c', status, payoutAddress: current, flaggedReason: null } : undefined;
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
});
