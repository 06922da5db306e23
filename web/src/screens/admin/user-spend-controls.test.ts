import { describe, expect, it } from 'vitest';
import { barPercents, grantProblem } from './user-spend-controls';

describe('budget bar', () => {
  it('shows spent then held as parts of the limit, never past the bar', () => {
    expect(barPercents({ spent_usd: '2.5', held_usd: '2.5', limit_usd: '10' })).toEqual({ spent: 25, held: 25 });
    expect(barPercents({ spent_usd: '8', held_usd: '5', limit_usd: '10' })).toEqual({ spent: 80, held: 20 });
    expect(barPercents({ spent_usd: '12', held_usd: '1', limit_usd: '10' })).toEqual({ spent: 100, held: 0 });
    expect(barPercents({ spent_usd: '0.01', held_usd: '0', limit_usd: '0' })).toEqual({ spent: 100, held: 0 });
  });
});

describe('grant form', () => {
  const now = Date.parse('2026-12-07T12:00:00Z');
  it('accepts a positive decimal amount and a future instant with its offset, within 730 days', () => {
    expect(grantProblem({ amount_usd: '5', expires_at: '2026-12-31T00:00:00Z' }, now)).toBeNull();
    expect(grantProblem({ amount_usd: '2.5', expires_at: '2026-12-07T14:00:00+01:00' }, now)).toBeNull();
    expect(grantProblem({ amount_usd: '2.5', expires_at: '2026-12-07T13:00:00+01:00' }, now)).toMatch(/future/);
    expect(grantProblem({ amount_usd: '0.000000000000000001', expires_at: '2026-12-07T12:00:01Z' }, now)).toBeNull();
  });
  it('refuses zero, negative or non-decimal amounts (compared exactly, not as floats)', () => {
    for (const amount_usd of ['0', '0.000', '-1', '1e3', 'abc', '']) expect(grantProblem({ amount_usd, expires_at: '2026-12-31T00:00:00Z' }, now)).toMatch(/positive decimal/);
  });
  it('refuses an instant without offset, in the past, now, or past the horizon', () => {
    expect(grantProblem({ amount_usd: '1', expires_at: '2026-12-31T00:00:00' }, now)).toMatch(/ISO instant/);
    expect(grantProblem({ amount_usd: '1', expires_at: '2026-12-07T12:00:00Z' }, now)).toMatch(/future/);
    expect(grantProblem({ amount_usd: '1', expires_at: '2026-01-01T00:00:00Z' }, now)).toMatch(/future/);
    expect(grantProblem({ amount_usd: '1', expires_at: '2028-12-07T12:00:00Z' }, now)).toMatch(/within 730 days/);
  });
});
