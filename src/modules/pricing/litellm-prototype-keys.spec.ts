// Input keys that are also names on Object.prototype ("__proto__", "constructor", "toString"...)
// must be ordinary unknown fields: a plain-object table lookup would return the inherited member
// and the import answered 500 (#24 item 6).
import fc from 'fast-check';
import { classifyField } from './litellm-fields.js';
import { parseLitellmDocument, planLitellmImport } from './litellm-import.js';

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);

function entryWith(field: string, value: unknown): string {
  return JSON.stringify({ m: { litellm_provider: 'openai', input_cost_per_token: 1e-6, output_cost_per_token: 2e-6, [field]: value } });
}

describe('LiteLLM import: Object.prototype names as field names', () => {
  it.each(PROTOTYPE_NAMES)('classifies %s as an ordinary field, never a known table entry', (name) => {
    expect(['ignored', 'unknown']).toContain(classifyField(name).type);
  });

  it.each(PROTOTYPE_NAMES)('imports an entry with a priced field named %s, dropping only that field', (name) => {
    const plan = planLitellmImport(parseLitellmDocument(entryWith(name, 5e-7)));
    expect(plan.prices).toHaveLength(1);
    expect(plan.prices[0]).toMatchObject({ model: 'm', inputAttoPerMtok: 10n ** 18n, outputAttoPerMtok: 2n * 10n ** 18n });
    expect(plan.skipped).toEqual([]);
  });

  it('never throws for any prototype name as field, model or nested key, with any JSON value', () => {
    const names = fc.constantFrom(...PROTOTYPE_NAMES);
    const values = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), fc.boolean(), fc.constant(null), fc.dictionary(names, fc.integer()));
    fc.assert(
      fc.property(names, names, values, (field, model, value) => {
        const text = JSON.stringify({ [model]: { input_cost_per_token: 1e-6, output_cost_per_token: 2e-6, [field]: value }, [field]: { [model]: value } });
        const document = parseLitellmDocument(text);
        const plan = planLitellmImport(document);
        expect(plan.counts.models + plan.counts.skippedModels).toBe(Object.keys(document).length);
      }),
      { numRuns: 300 },
    );
  });
});
