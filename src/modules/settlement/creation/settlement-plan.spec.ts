import fc from 'fast-check';
import type { Address } from 'viem';
import { decideLine, planSettlement, requiresApproval, type SettlementLimits } from './settlement-plan.js';

const MICRO = 10n ** 12n; // atto per micro-USDC
const USD = 10n ** 18n;
const limits: SettlementLimits = {
  minPayoutAtto: 10n * USD,
  lineMaxMicroUsdc: 1_000n * 1_000_000n,
  totalMaxMicroUsdc: 2_500n * 1_000_000n,
  approvalThresholdAtto: 2_000n * USD,
  linesMax: 3,
};
const address = '0x00000000000000000000000000000000000000a1' as Address;

describe('settlement plan', () => {
  it.each([
    ['below the minimum', 10n * USD - 1n, 0n, { kind: 'skip' }],
    ['exactly the minimum', 10n * USD, 0n, { kind: 'add', amountMicroUsdc: 10_000_000n }],
    ['truncates the sub-micro remainder', 12n * USD + MICRO - 1n, 0n, { kind: 'add', amountMicroUsdc: 12_000_000n }],
    ['caps one line', 5_000n * USD, 0n, { kind: 'add', amountMicroUsdc: 1_000_000_000n }],
    ['stops past the total cap', 600n * USD, 2_000n * 1_000_000n, { kind: 'stop' }],
    ['fills the total cap exactly', 500n * USD, 2_000n * 1_000_000n, { kind: 'add', amountMicroUsdc: 500_000_000n }],
  ])('%s', (_name, payableAtto, totalSoFarMicroUsdc, expected) => {
    expect(decideLine({ payableAtto, totalSoFarMicroUsdc, linesSoFar: 0, limits })).toEqual(expected);
  });

  it('stops at the line count limit and asks approval only above the threshold', () => {
    expect(decideLine({ payableAtto: 20n * USD, totalSoFarMicroUsdc: 0n, linesSoFar: 3, limits })).toEqual({ kind: 'stop' });
    expect(requiresApproval(2_000n * 1_000_000n, limits)).toBe(false);
    expect(requiresApproval(2_000n * 1_000_000n + 1n, limits)).toBe(true);
  });

  it('orders by payable account code and never pays more than the payable (property)', () => {
    const open = { ...limits, linesMax: 1_000, totalMaxMicroUsdc: 10n ** 30n, lineMaxMicroUsdc: 10n ** 30n };
    fc.assert(
      fc.property(fc.array(fc.bigInt({ min: 0n, max: 10n ** 24n }), { maxLength: 40 }), (balances) => {
        const candidates = balances.map((payableAtto, i) => ({ contributorId: `c${i}`, payoutAddress: address, payableAtto }));
        const plan = planSettlement({ candidates, limits: open });
        const byId = new Map(candidates.map((c) => [c.contributorId, c.payableAtto]));
        for (const line of plan.lines) {
          const payableAtto = byId.get(line.contributorId)!;
          expect(line.amountMicroUsdc * MICRO).toBeLessThanOrEqual(payableAtto);
          expect(payableAtto - line.amountMicroUsdc * MICRO).toBeLessThan(MICRO);
        }
        expect(plan.lines.length).toBe(balances.filter((b) => b >= open.minPayoutAtto).length);
        const codes = plan.lines.map((l) => `contributor:${l.contributorId}:payable`);
        expect(codes).toEqual([...codes].sort());
      }),
    );
  });
});
