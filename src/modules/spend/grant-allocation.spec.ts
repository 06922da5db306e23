// Properties of the grant rules over random sequences of grants, charges (holds captured or not
// are charges here: a hold never moves a balance), refunds and expiries, replayed against a model
// ledger with one account per grant, the user's purchased account and the platform.
import fc from 'fast-check';
import { byConsumptionOrder, drawCharges, grantUsableAt, refundToGrants, usableGrantsAtto, type GrantFunds } from './grant-allocation.js';

const T0 = Date.UTC(2026, 11, 7);
const HOUR = 3_600_000;

describe('drawCharges', () => {
  it('takes the grant expiring first first, then the next, and leaves the rest of a charge to purchased credit', () => {
    const at = new Date(T0);
    const grants: GrantFunds[] = [
      { grantId: 'late', expiresAt: new Date(T0 + 3 * HOUR), remainingAtto: 50n },
      { grantId: 'early', expiresAt: new Date(T0 + HOUR), remainingAtto: 30n },
      { grantId: 'gone', expiresAt: new Date(T0), remainingAtto: 99n },
    ];
    const { draws, remaining } = drawCharges(grants, [{ ref: 'e1', amountAtto: 20n }, { ref: 'e2', amountAtto: 100n }], at);
    expect(draws).toEqual([
      { ref: 'e1', draws: [{ grantId: 'early', amountAtto: 20n }] },
      { ref: 'e2', draws: [{ grantId: 'early', amountAtto: 10n }, { grantId: 'late', amountAtto: 50n }] },
    ]);
    // Expired at the charge (expires_at == at): never drawn, left for breakage.
    expect(remaining).toEqual(new Map([['late', 0n], ['early', 0n], ['gone', 99n]]));
  });

  it('ties on expiry are broken by grant id', () => {
    const expiresAt = new Date(T0 + HOUR);
    const grants = [{ grantId: 'b', expiresAt, remainingAtto: 5n }, { grantId: 'a', expiresAt, remainingAtto: 5n }];
    expect(drawCharges(grants, [{ ref: 'e', amountAtto: 6n }], new Date(T0)).draws[0]!.draws.map((d) => d.grantId)).toEqual(['a', 'b']);
  });
});

describe('grantUsableAt', () => {
  it('a grant pays until the instant before expires_at, not at it', () => {
    const grant = { expiresAt: new Date(T0) };
    expect(grantUsableAt(grant, new Date(T0 - 1))).toBe(true);
    expect(grantUsableAt(grant, new Date(T0))).toBe(false);
    expect(grantUsableAt(grant, new Date(T0 + 1))).toBe(false);
  });
});

describe('refundToGrants', () => {
  it('gives back to the grant expiring last first, continuing where earlier refunds of the event stopped', () => {
    const drawn = [
      { grantId: 'early', amountAtto: 10n, expiresAt: new Date(T0 + HOUR) },
      { grantId: 'late', amountAtto: 4n, expiresAt: new Date(T0 + 2 * HOUR) },
    ];
    expect(refundToGrants({ drawn, refundedBeforeAtto: 0n, refundAtto: 6n })).toEqual([{ grantId: 'late', amountAtto: 4n }, { grantId: 'early', amountAtto: 2n }]);
    expect(refundToGrants({ drawn, refundedBeforeAtto: 6n, refundAtto: 100n })).toEqual([{ grantId: 'early', amountAtto: 8n }]);
    expect(refundToGrants({ drawn, refundedBeforeAtto: 14n, refundAtto: 5n })).toEqual([]);
  });
});

type Step =
  | { kind: 'grant'; amount: bigint; expiresInHours: number }
  | { kind: 'charge'; amount: bigint }
  | { kind: 'refund'; charge: number; amount: bigint }
  | { kind: 'advance'; hours: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('grant' as const), amount: fc.bigInt({ min: 1n, max: 1000n }), expiresInHours: fc.integer({ min: 1, max: 12 }) }),
  fc.record({ kind: fc.constant('charge' as const), amount: fc.bigInt({ min: 0n, max: 700n }) }),
  fc.record({ kind: fc.constant('refund' as const), charge: fc.nat(), amount: fc.bigInt({ min: 1n, max: 700n }) }),
  fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 0, max: 5 }) }),
);

/** The model: grant accounts, purchased, platform; breakage once per grant when the clock passes its expiry. */
function replay(steps: Step[]) {
  let now = T0;
  const grants: Array<GrantFunds & { amountAtto: bigint; broken: boolean; breakageAtto: bigint; drawnAtto: bigint; returnedAtto: bigint; returnedBeforeBreakAtto: bigint }> = [];
  const charges: Array<{ amountAtto: bigint; refundedAtto: bigint; drawn: Array<{ grantId: string; amountAtto: bigint; expiresAt: Date }> }> = [];
  let purchased = 1_000n;
  let platform = -1_000n; // the purchase came from outside
  const orderViolations: string[] = [];
  const breakAll = () => {
    for (const g of grants) {
      if (g.broken || g.expiresAt.getTime() > now) continue;
      g.broken = true;
      g.breakageAtto = g.remainingAtto;
      platform += g.remainingAtto;
      g.remainingAtto = 0n;
    }
  };
  steps.forEach((step, i) => {
    if (step.kind === 'advance') {
      now += step.hours * HOUR;
      breakAll();
    } else if (step.kind === 'grant') {
      grants.push({ grantId: `g${i}`, expiresAt: new Date(now + step.expiresInHours * HOUR), remainingAtto: step.amount, amountAtto: step.amount, broken: false, breakageAtto: 0n, drawnAtto: 0n, returnedAtto: 0n, returnedBeforeBreakAtto: 0n });
      platform -= step.amount;
    } else if (step.kind === 'charge') {
      const open = grants.filter((g) => !g.broken);
      const { draws } = drawCharges(open, [{ ref: `c${i}`, amountAtto: step.amount }], new Date(now));
      const taken = draws[0]?.draws ?? [];
      // Order: a grant is drawn only once every usable grant expiring before it is empty.
      for (const d of taken) {
        const g = grants.find((x) => x.grantId === d.grantId)!;
        g.remainingAtto -= d.amountAtto;
        g.drawnAtto += d.amountAtto;
      }
      const last = taken.at(-1);
      if (last) {
        const lastGrant = grants.find((g) => g.grantId === last.grantId)!;
        for (const g of open) if (grantUsableAt(g, new Date(now)) && byConsumptionOrder(g, lastGrant) < 0 && g.remainingAtto > 0n) orderViolations.push(`${g.grantId} before ${last.grantId}`);
      }
      const fromGrants = taken.reduce((s, d) => s + d.amountAtto, 0n);
      purchased -= step.amount - fromGrants;
      platform += step.amount; // payout + margin: outside the user's accounts
      charges.push({ amountAtto: step.amount, refundedAtto: 0n, drawn: taken.map((d) => ({ ...d, expiresAt: grants.find((g) => g.grantId === d.grantId)!.expiresAt })) });
    } else if (charges.length > 0) {
      const charge = charges[step.charge % charges.length]!;
      const amount = step.amount < charge.amountAtto - charge.refundedAtto ? step.amount : charge.amountAtto - charge.refundedAtto;
      if (amount <= 0n) return;
      const parts = refundToGrants({ drawn: charge.drawn, refundedBeforeAtto: charge.refundedAtto, refundAtto: amount });
      charge.refundedAtto += amount;
      platform -= amount;
      let toGrants = 0n;
      for (const part of parts) {
        const g = grants.find((x) => x.grantId === part.grantId)!;
        toGrants += part.amountAtto;
        g.returnedAtto += part.amountAtto;
        if (g.broken) platform += part.amountAtto; // straight to breakage revenue
        else {
          g.remainingAtto += part.amountAtto;
          g.returnedBeforeBreakAtto += part.amountAtto;
        }
      }
      purchased += amount - toGrants;
    }
  });
  now += 24 * HOUR;
  breakAll();
  return { grants, charges, purchased, platform, orderViolations };
}

describe('grant sequences (property)', () => {
  it('consume in expiry order, conserve every atto, break exactly the unused remainder, never turn promo into purchased credit', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 40 }), (steps) => {
        const { grants, charges, purchased, platform, orderViolations } = replay(steps);
        expect(orderViolations).toEqual([]);
        // The ledger sums to zero: every grant is empty after the last expiry.
        expect(purchased + platform + grants.reduce((s, g) => s + g.remainingAtto, 0n)).toBe(0n);
        for (const g of grants) {
          expect(g.remainingAtto).toBe(0n);
          expect(g.broken).toBe(true);
          // Breakage is what was never spent (refunds given back before the breakage count as unspent).
          expect(g.breakageAtto).toBeGreaterThanOrEqual(0n);
          expect(g.breakageAtto).toBeLessThanOrEqual(g.amountAtto);
          expect(g.drawnAtto - g.returnedAtto).toBeGreaterThanOrEqual(0n);
          expect(g.returnedAtto).toBeLessThanOrEqual(g.drawnAtto);
        }
        // Purchased credit moves only by the non-grant part of charges and refunds.
        const purchasedSpent = charges.reduce((s, c) => s + c.amountAtto - c.drawn.reduce((t, d) => t + d.amountAtto, 0n), 0n);
        const purchasedBack = charges.reduce((s, c) => s + (c.refundedAtto > c.drawn.reduce((t, d) => t + d.amountAtto, 0n) ? c.refundedAtto - c.drawn.reduce((t, d) => t + d.amountAtto, 0n) : 0n), 0n);
        expect(purchased).toBe(1_000n - purchasedSpent + purchasedBack);
        // Breakage is exactly the unused remainder: the amount less what was spent of it (net of refunds given back before it broke).
        for (const g of grants) expect(g.breakageAtto).toBe(g.amountAtto - g.drawnAtto + g.returnedBeforeBreakAtto);
      }),
      { numRuns: 300 },
    );
  });

  it('usableGrantsAtto counts only grants not expired at the instant', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ h: fc.integer({ min: -5, max: 5 }), a: fc.bigInt({ min: 0n, max: 100n }) }), { maxLength: 8 }), (rows) => {
        const grants = rows.map((r, i) => ({ grantId: `g${i}`, expiresAt: new Date(T0 + r.h * HOUR), remainingAtto: r.a }));
        const expected = rows.filter((r) => r.h > 0).reduce((s, r) => s + r.a, 0n);
        expect(usableGrantsAtto(grants, new Date(T0))).toBe(expected);
      }),
    );
  });
});
