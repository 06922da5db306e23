import { describe, expect, it } from 'vitest';
import { barPercents } from './user-spend-controls';

describe('budget bar', () => {
  it('shows spent then held as parts of the limit, never past the bar', () => {
    expect(barPercents({ spent_usd: '2.5', held_usd: '2.5', limit_usd: '10' })).toEqual({ spent: 25, held: 25 });
    expect(barPercents({ spent_usd: '8', held_usd: '5', limit_usd: '10' })).toEqual({ spent: 80, held: 20 });
    expect(barPercents({ spent_usd: '12', held_usd: '1', limit_usd: '10' })).toEqual({ spent: 100, held: 0 });
    expect(barPercents({ spent_usd: '0.01', held_usd: '0', limit_usd: '0' })).toEqual({ spent: 100, held: 0 });
  });
});
