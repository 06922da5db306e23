import fc from 'fast-check';
import { billedVariant } from './stream-variant.js';

describe('billedVariant: a service_tier dearer than the request is never billed (api.md "Contributor trust")', () => {
  it('no tier, or the tier requested: the request; default/auto/on_demand are standard', () => {
    expect(billedVariant(undefined, null)).toEqual({ variant: 'standard', claimed: null });
    expect(billedVariant('flex', null)).toEqual({ variant: 'flex', claimed: null });
    for (const tier of ['default', 'auto', 'on_demand', 'standard', 'Standard']) expect(billedVariant(undefined, tier)).toEqual({ variant: 'standard', claimed: null });
    expect(billedVariant('priority', 'priority')).toEqual({ variant: 'priority', claimed: null });
  });

  it('a dearer tier is claimed: the request billed', () => {
    expect(billedVariant(undefined, 'priority')).toEqual({ variant: 'standard', claimed: 'priority' });
    expect(billedVariant('flex', 'default')).toEqual({ variant: 'flex', claimed: 'standard' });
    expect(billedVariant('batch', 'scale')).toEqual({ variant: 'batch', claimed: 'scale' });
  });

  it('a cheaper tier is believed; one of the same rank is not a change', () => {
    expect(billedVariant(undefined, 'flex')).toEqual({ variant: 'flex', claimed: null });
    expect(billedVariant('priority', 'default')).toEqual({ variant: 'standard', claimed: null });
    expect(billedVariant('flex', 'batch')).toEqual({ variant: 'flex', claimed: null });
  });

  it('an unknown tier name is not believed; a request off the tier ladder stays as requested', () => {
    expect(billedVariant(undefined, 'ultra')).toEqual({ variant: 'standard', claimed: 'ultra' });
    expect(billedVariant('eu', 'default')).toEqual({ variant: 'eu', claimed: null });
    expect(billedVariant('eu', 'flex')).toEqual({ variant: 'eu', claimed: null });
    expect(billedVariant('us', 'priority')).toEqual({ variant: 'us', claimed: 'priority' });
  });

  it('whatever the tier, the variant billed is the request or a tier below it: never dearer', () => {
    const tiers = fc.constantFrom('default', 'auto', 'standard', 'flex', 'batch', 'priority', 'scale', 'on_demand', 'ultra', 'eu');
    const rank: Record<string, number> = { batch: 0, flex: 0, standard: 1, priority: 2, scale: 2 };
    fc.assert(
      fc.property(fc.option(fc.constantFrom('standard', 'flex', 'batch', 'priority', 'eu', 'us'), { nil: undefined }), fc.option(tiers, { nil: null }), (requested, tier) => {
        const { variant, claimed } = billedVariant(requested, tier);
        const asked = requested ?? 'standard';
        if (variant !== asked) expect(rank[variant]!).toBeLessThan(rank[asked]!);
        if (claimed !== null) expect(variant).toBe(asked);
      }),
      { seed: 33 },
    );
  });
});
