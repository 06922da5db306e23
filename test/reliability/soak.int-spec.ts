// The seeded soak's schedule (issue #38): the same seed plans the same steps (same hashes), another
// seed other steps. The 2-minute run of the whole stack is test/reliability/soak-run.rel-spec.ts.
import fc from 'fast-check';
import { SoakSchedule } from '../../scripts/soak/soak-schedule.js';

function plan(seed: number, steps: number): string[] {
  const schedule = new SoakSchedule(seed);
  return Array.from({ length: steps }, () => schedule.next().hash);
}

describe('the seeded soak', () => {
  it('plans the same steps for the same seed and other steps for another seed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), (seed) => {
        const first = plan(seed, 200);
        expect(plan(seed, 200)).toEqual(first);
        expect(plan(seed + 1, 200)[199]).not.toBe(first[199]);
      }),
      { numRuns: 20 },
    );
  });
});
