import fc from 'fast-check';
import { clawbackTotal, planRefund, type EventAmounts } from './refund-math.js';

// Charges as the pricing path makes them: official (a multiple of 1e6 atto) x 1.3, payout x 1.1 | 1.2.
const eventArb: fc.Arbitrary<EventAmounts> = fc
  .tuple(fc.bigInt({ min: 1n, max: 10n ** 14n }), fc.constantFrom(11n, 12n))
  .map(([officialMicro, tierTenths]) => {
    const official = officialMicro * 1_000_000n;
    return { chargeAtto: (official * 13n) / 10n, payoutAtto: (official * tierTenths) / 10n };
  });
// Also any charge and payout (payout <= charge), exact or not.
const anyEventArb: fc.Arbitrary<EventAmounts> = fc
  .bigInt({ min: 1n, max: 10n ** 24n })
  .chain((charge) => fc.bigInt({ min: 0n, max: charge }).map((payout) => ({ chargeAtto: charge, payoutAtto: payout })));
const eventsArb = fc.oneof(eventArb, anyEventArb);

/** Cut points in (0, charge): a random split of the full charge into parts. */
function splitArb(event: EventAmounts, partsMax: number) {
  return fc.array(fc.bigInt({ min: 1n, max: event.chargeAtto }), { maxLength: partsMax }).map((cuts) => {
    const points = [...new Set(cuts.filter((c) => c < event.chargeAtto))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const parts: bigint[] = [];
    let last = 0n;
    for (const p of [...points, event.chargeAtto]) {
      parts.push(p - last);
      last = p;
    }
    return parts;
  });
}

function applyParts(event: EventAmounts, parts: bigint[]) {
  let refunded = 0n;
  let clawedBack = 0n;
  let marginReversed = 0n;
  for (const part of parts) {
    const decision = planRefund(event, refunded, part);
    if (!decision.ok) throw new Error(`part ${part} refused`);
    const s = decision.split;
    expect(s.clawbackAtto).toBeGreaterThanOrEqual(0n);
    expect(s.marginReversedAtto).toBeGreaterThanOrEqual(0n);
    expect(s.clawbackAtto + s.marginReversedAtto).toBe(part);
    refunded = s.refundedTotalAtto;
    clawedBack += s.clawbackAtto;
    marginReversed += s.marginReversedAtto;
    expect(s.clawbackTotalAtto).toBe(clawedBack);
    expect(clawedBack).toBeLessThanOrEqual(event.payoutAtto);
    expect(marginReversed).toBeLessThanOrEqual(event.chargeAtto - event.payoutAtto);
  }
  return { refunded, clawedBack, marginReversed };
}

describe('refund arithmetic (cumulative floor)', () => {
  it('any split of a full refund claws back exactly the payout and reverses exactly the margin', () => {
    fc.assert(
      fc.property(eventsArb.chain((e) => fc.tuple(fc.constant(e), splitArb(e, 12))), ([event, parts]) => {
        const { refunded, clawedBack, marginReversed } = applyParts(event, parts);
        expect(refunded).toBe(event.chargeAtto);
        expect(clawedBack).toBe(event.payoutAtto);
        expect(marginReversed).toBe(event.chargeAtto - event.payoutAtto);
        // charge - refunds == what the user is still charged, exact: nothing left to refund.
        expect(planRefund(event, refunded, null)).toEqual({ ok: false, code: 'refund_exceeds_charge', refundableAtto: 0n });
      }),
      { numRuns: 500 },
    );
  });

  it('partial refunds never claw back more than the payout, and charge - refunds == the user net', () => {
    fc.assert(
      fc.property(
        eventsArb.chain((e) => fc.tuple(fc.constant(e), splitArb(e, 8), fc.nat())),
        ([event, parts, keep]) => {
          const partial = parts.slice(0, keep % (parts.length + 1));
          const { refunded, clawedBack, marginReversed } = applyParts(event, partial);
          expect(clawedBack).toBe(clawbackTotal(event, refunded));
          expect(clawedBack).toBeLessThanOrEqual(event.payoutAtto);
          // The user is out of pocket exactly charge - refunded; the platform and the contributor split it exactly.
          const userNet = event.chargeAtto - refunded;
          expect(userNet).toBe(event.payoutAtto - clawedBack + (event.chargeAtto - event.payoutAtto - marginReversed));
          // The share never runs ahead of the refunded fraction.
          expect(clawedBack * event.chargeAtto).toBeLessThanOrEqual(refunded * event.payoutAtto);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses a zero part, a part past the charge, and anything after a full refund', () => {
    fc.assert(
      fc.property(eventsArb, fc.bigInt({ min: 1n, max: 10n ** 6n }), (event, over) => {
        expect(planRefund(event, 0n, 0n).ok).toBe(false);
        expect(planRefund(event, 0n, event.chargeAtto + over)).toEqual({ ok: false, code: 'refund_exceeds_charge', refundableAtto: event.chargeAtto });
        const full = planRefund(event, 0n, null);
        expect(full.ok && full.split.clawbackAtto).toBe(event.payoutAtto);
        expect(planRefund(event, event.chargeAtto, 1n).ok).toBe(false);
      }),
    );
  });

  it('worked example: 3 parts of a 0.0065 charge with a 0.0055 payout', () => {
    const event = { chargeAtto: 6_500_000_000_000_000n, payoutAtto: 5_500_000_000_000_000n };
    const a = planRefund(event, 0n, 1_000_000_000_000_001n);
    expect(a).toEqual({ ok: true, split: { amountAtto: 1_000_000_000_000_001n, clawbackAtto: 846_153_846_153_847n, marginReversedAtto: 153_846_153_846_154n, refundedTotalAtto: 1_000_000_000_000_001n, clawbackTotalAtto: 846_153_846_153_847n } });
  });
});
