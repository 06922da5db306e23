import fc from 'fast-check';
import { auditRows, auditVerdicts, mad, median, type RatioGroup } from './usage-audit-stats.js';

const RULES = { minEvents: 50, threshold: 0.1, madMultiple: 4 };
const ratio = fc.double({ min: 0.5, max: 2, noNaN: true });

describe('median and MAD', () => {
  it('median sits between the values: as many at or below as at or above', () => {
    fc.assert(
      fc.property(fc.array(ratio, { minLength: 1, maxLength: 50 }), (values) => {
        const m = median(values);
        expect(values.filter((v) => v <= m).length).toBeGreaterThanOrEqual(values.length / 2);
        expect(values.filter((v) => v >= m).length).toBeGreaterThanOrEqual(values.length / 2);
      }),
    );
  });

  it('MAD is shift-invariant and zero for constant values', () => {
    fc.assert(
      fc.property(fc.array(ratio, { minLength: 2, maxLength: 30 }), fc.double({ min: -1, max: 1, noNaN: true }), (values, shift) => {
        expect(mad(values.map((v) => v + shift))).toBeCloseTo(mad(values), 9);
      }),
    );
    expect(mad([1.2, 1.2, 1.2])).toBe(0);
  });
});

describe('auditVerdicts', () => {
  const group = (contributorId: string, medianRatio: number, events = 100, model = 'm'): RatioGroup => ({ contributorId, model, events, medianRatio });

  it('flags a contributor 15% above a tight population, not the population', () => {
    const verdicts = auditVerdicts([group('a', 1.01), group('b', 1.0), group('c', 1.02), group('d', 0.99), group('x', 1.16)], RULES);
    expect(verdicts.filter((v) => v.flagged).map((v) => v.contributorId)).toEqual(['x']);
    expect(verdicts.find((v) => v.contributorId === 'x')!.modelMedianRatio).toBeCloseTo(1.005, 9);
  });

  it('never flags below the minimum of events, without other contributors, or within the threshold', () => {
    expect(auditVerdicts([group('a', 1), group('b', 1), group('x', 1.5, 49)], RULES).some((v) => v.flagged)).toBe(false);
    expect(auditVerdicts([group('x', 5)], RULES)[0]).toMatchObject({ flagged: false, modelMedianRatio: null });
    expect(auditVerdicts([group('a', 1), group('b', 1), group('x', 1.099)], RULES).some((v) => v.flagged)).toBe(false);
  });

  it('does not flag above a noisy population: the MAD of the others widens the band', () => {
    const noisy = [group('a', 0.8), group('b', 1.0), group('c', 1.2), group('d', 0.9), group('e', 1.1)];
    expect(auditVerdicts([...noisy, group('x', 1.3)], RULES).find((v) => v.contributorId === 'x')!.flagged).toBe(false);
  });

  it('models are independent, and a common bias of a model (another tokenizer) flags no one', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.98, max: 1.02, noNaN: true }), { minLength: 3, maxLength: 12 }), fc.double({ min: 0.7, max: 1.5, noNaN: true }), (honest, bias) => {
        const groups = honest.flatMap((r, i) => [group(`c${i}`, r, 100, 'a'), group(`c${i}`, r * bias, 100, 'b')]);
        expect(auditVerdicts(groups, RULES).some((v) => v.flagged)).toBe(false);
      }),
    );
  });

  it('is monotone: raising a flagged contributor\'s ratio keeps it flagged', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.95, max: 1.05, noNaN: true }), { minLength: 2, maxLength: 10 }), ratio, fc.double({ min: 0, max: 1, noNaN: true }), (honest, x, raise) => {
        const others = honest.map((r, i) => group(`c${i}`, r));
        const before = auditVerdicts([...others, group('x', x)], RULES).find((v) => v.contributorId === 'x')!;
        const after = auditVerdicts([...others, group('x', x + raise)], RULES).find((v) => v.contributorId === 'x')!;
        if (before.flagged) expect(after.flagged).toBe(true);
      }),
    );
  });
});

describe('auditRows: completion, prompt and reasoning ratios, each against the same ratio of the others', () => {
  const row = (contributorId: string, ratios: Record<string, [number, number, number?]>) => ({
    contributorId,
    model: 'm',
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, [events, medianRatio, madRatio]]) => [k, { events, medianRatio, madRatio }])),
  });
  const honest = (id: string, prompt = 1.01) => row(id, { completion: [100, 1.0], prompt: [100, prompt], reasoning: [100, 2.0, 0.8] });

  it('flags by the ratio that is inflated only, and lists it', () => {
    const rows = [honest('a'), honest('b', 1.02), honest('c', 1.0), row('p', { completion: [100, 1.0], prompt: [100, 1.31], reasoning: [100, 2.0, 0.8] }), row('r', { completion: [100, 1.0], prompt: [100, 1.01], reasoning: [100, 2.9, 0.5] })];
    const verdicts = auditRows(rows, RULES, 0.05);
    expect(verdicts.map((v) => [v.contributorId, v.flaggedRatios])).toEqual([['a', []], ['b', []], ['c', []], ['p', ['prompt']], ['r', ['reasoning']]]);
  });

  it('a prompt ratio within the tolerance of the gateway\'s count flags no one, however far from the others', () => {
    const rows = [honest('a', 0.9), honest('b', 0.9), honest('c', 0.9), honest('x', 1.04)];
    expect(auditRows(rows, RULES, 0.05).some((v) => v.flagged)).toBe(false);
  });

  it("a median from few widely spread events is not flagged: its own standard error widens the band", () => {
    const rows = [honest('a'), honest('b'), honest('c'), row('x', { completion: [50, 1.0], reasoning: [50, 2.5, 1.2] })];
    expect(auditRows(rows, RULES, 0.05).find((v) => v.contributorId === 'x')!.flagged).toBe(false);
    const more = [honest('a'), honest('b'), honest('c'), row('x', { completion: [1000, 1.0], reasoning: [1000, 2.5, 1.2] })];
    expect(auditRows(more, RULES, 0.05).find((v) => v.contributorId === 'x')!.flaggedRatios).toEqual(['reasoning']);
  });
});
