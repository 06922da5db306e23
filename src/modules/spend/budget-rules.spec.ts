// Properties of the budget rules and periods: for any sequence of events, holds, captures,
// releases and refunds decided by exceededBudget, every block budget keeps spent + held <= limit
// at every hold decision; periods are UTC days, ISO weeks and months that contain the instant.
import fc from 'fast-check';
import { periodRange, type BudgetPeriod } from './budget-periods.js';
import { budgetApplies, exceededBudget, remainingAtto, thresholdsReached, type Budget } from './budget-rules.js';

const scope = fc.record({ keyId: fc.constantFrom(null, 'k1', 'k2'), model: fc.constantFrom(null, 'm1') });
const budgetArb = fc.record({
  budgetId: fc.string({ minLength: 1, maxLength: 4 }),
  limitAtto: fc.bigInt({ min: 0n, max: 1000n }),
  action: fc.constantFrom('block' as const, 'notify' as const),
  keyId: fc.constantFrom(null, 'k1', 'k2'),
  model: fc.constantFrom(null, 'm1'),
});
const step = fc.oneof(
  fc.record({ kind: fc.constant('hold' as const), amount: fc.bigInt({ min: 1n, max: 300n }), scope }),
  fc.record({ kind: fc.constant('event' as const), amount: fc.bigInt({ min: 0n, max: 300n }), scope }),
  fc.record({ kind: fc.constant('capture' as const), index: fc.nat(), charge: fc.bigInt({ min: 0n, max: 300n }) }),
  fc.record({ kind: fc.constant('release' as const), index: fc.nat() }),
  fc.record({ kind: fc.constant('refund' as const), index: fc.nat() }),
);

describe('budget rules', () => {
  it('spent + held <= limit for every block budget at every hold decision; remaining is never below 0', () => {
    fc.assert(
      fc.property(fc.array(budgetArb, { minLength: 1, maxLength: 5 }), fc.array(step, { maxLength: 60 }), (rawBudgets, steps) => {
        const budgets: Budget[] = rawBudgets.map((b, i) => ({ ...b, budgetId: `${i}`, userId: 'u', period: 'total', alertAt: [] }));
        const holds: Array<{ amount: bigint; scope: { keyId: string | null; model: string | null }; active: boolean }> = [];
        const events: Array<{ amount: bigint; scope: { keyId: string | null; model: string | null }; refunded: boolean }> = [];
        const figures = (item: { keyId: string | null; model: string | null }) =>
          budgets.filter((b) => budgetApplies(b, item)).map((b) => ({
            ...b,
            spentAtto: events.filter((e) => !e.refunded && budgetApplies(b, e.scope)).reduce((s, e) => s + e.amount, 0n),
            heldAtto: holds.filter((h) => h.active && budgetApplies(b, h.scope)).reduce((s, h) => s + h.amount, 0n),
          }));
        for (const s of steps) {
          if (s.kind === 'hold') {
            const before = figures(s.scope);
            if (exceededBudget(before, s.amount) === null) {
              holds.push({ amount: s.amount, scope: s.scope, active: true });
              for (const b of figures(s.scope)) if (b.action === 'block') expect(b.spentAtto + b.heldAtto).toBeLessThanOrEqual(b.limitAtto);
            } else {
              expect(before.some((b) => b.action === 'block' && b.spentAtto + b.heldAtto + s.amount > b.limitAtto)).toBe(true);
            }
            for (const b of before) expect(remainingAtto(b.limitAtto, b) >= 0n).toBe(true);
          } else if (s.kind === 'event') {
            events.push({ amount: s.amount, scope: s.scope, refunded: false });
          } else if (s.kind === 'capture' && holds.length > 0) {
            const h = holds[s.index % holds.length]!;
            if (h.active) {
              h.active = false;
              events.push({ amount: s.charge, scope: h.scope, refunded: false });
            }
          } else if (s.kind === 'release' && holds.length > 0) {
            holds[s.index % holds.length]!.active = false;
          } else if (s.kind === 'refund' && events.length > 0) {
            events[s.index % events.length]!.refunded = true;
          }
        }
      }),
    );
  });

  it('a scoped budget applies only to what names its key and model; an unscoped one to everything', () => {
    expect(budgetApplies({ keyId: null, model: null }, { keyId: 'k', model: 'm' })).toBe(true);
    expect(budgetApplies({ keyId: 'k', model: null }, { keyId: null, model: null })).toBe(false);
    expect(budgetApplies({ keyId: 'k', model: 'm' }, { keyId: 'k', model: 'n' })).toBe(false);
    expect(budgetApplies({ keyId: 'k', model: 'm' }, { keyId: 'k', model: 'm' })).toBe(true);
  });

  it('reaches a threshold exactly at threshold x limit, never with nothing spent', () => {
    expect(thresholdsReached(['0.5', '0.8', '1'], 799n, 1000n)).toEqual(['0.5']);
    expect(thresholdsReached(['0.5', '0.8', '1'], 800n, 1000n)).toEqual(['0.5', '0.8']);
    expect(thresholdsReached(['0.5', '0.8', '1', '1.25'], 1250n, 1000n)).toEqual(['0.5', '0.8', '1', '1.25']);
    expect(thresholdsReached(['0.5'], 0n, 0n)).toEqual([]);
    expect(thresholdsReached(['0.333333'], 333_333n, 1_000_000n)).toEqual(['0.333333']);
  });
});

describe('budget periods', () => {
  const instant = fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-12-31T23:59:59.999Z'), noInvalidDate: true });

  it('contain the instant, start at a UTC midnight, and run a day, an ISO week (from Monday) or a calendar month', () => {
    fc.assert(
      fc.property(instant, fc.constantFrom<BudgetPeriod>('day', 'week', 'month'), (now, period) => {
        const { start, end } = periodRange(period, now);
        expect(start!.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(end!.getTime()).toBeGreaterThan(now.getTime());
        expect(start!.toISOString().endsWith('T00:00:00.000Z')).toBe(true);
        expect(end!.toISOString().endsWith('T00:00:00.000Z')).toBe(true);
        const days = (end!.getTime() - start!.getTime()) / 86_400_000;
        if (period === 'day') expect(days).toBe(1);
        if (period === 'week') expect([days, start!.getUTCDay()]).toEqual([7, 1]);
        if (period === 'month') expect([start!.getUTCDate(), end!.getUTCDate(), days >= 28 && days <= 31]).toEqual([1, 1, true]);
      }),
    );
  });

  it('edges: leap day, the last millisecond of a month, a Sunday, a total budget', () => {
    expect(periodRange('month', new Date('2024-02-29T23:59:59.999Z'))).toEqual({ start: new Date('2024-02-01T00:00:00Z'), end: new Date('2024-03-01T00:00:00Z') });
    expect(periodRange('day', new Date('2024-02-29T12:00:00Z'))).toEqual({ start: new Date('2024-02-29T00:00:00Z'), end: new Date('2024-03-01T00:00:00Z') });
    expect(periodRange('week', new Date('2024-03-03T23:59:59.999Z'))).toEqual({ start: new Date('2024-02-26T00:00:00Z'), end: new Date('2024-03-04T00:00:00Z') });
    expect(periodRange('week', new Date('2024-03-04T00:00:00Z')).start).toEqual(new Date('2024-03-04T00:00:00Z'));
    expect(periodRange('month', new Date('2025-12-31T23:59:59.999Z')).end).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(periodRange('total', new Date())).toEqual({ start: null, end: null });
  });
});
