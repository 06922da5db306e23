import { shareRepeatedSchemas } from './shared-schemas.js';

const tier = { type: 'object', properties: { above: { type: 'integer' } }, required: ['above'] };
const price = { type: 'object', properties: { id: { type: 'string' }, tiers: { type: 'array', items: tier } }, required: ['id', 'tiers'] };

function documentWith(schemas: Record<string, object>) {
  return {
    paths: { '/prices': { get: { parameters: [{ name: 'tier', in: 'query', schema: structuredClone(tier) }] } } },
    components: { schemas },
  };
}

describe('shareRepeatedSchemas', () => {
  it('points every copy of a DTO at it, nullable copies included, and leaves the argument alone', () => {
    const document = documentWith({
      Price: structuredClone(price),
      PriceList: { type: 'object', properties: { data: { type: 'array', items: structuredClone(price) }, next: { ...structuredClone(price), nullable: true } } },
    });
    const before = structuredClone(document);
    const shared = shareRepeatedSchemas(document, { named: {}, extended: {} });
    expect(shared.components.schemas.PriceList).toEqual({
      type: 'object',
      properties: {
        data: { type: 'array', items: { $ref: '#/components/schemas/Price' } },
        next: { type: 'object', allOf: [{ $ref: '#/components/schemas/Price' }], nullable: true },
      },
    });
    expect(shared.components.schemas.Price).toEqual(price);
    expect(document).toEqual(before);
  });

  it('names a repeated shape from the table, in components and in paths', () => {
    const shared = shareRepeatedSchemas(documentWith({ Price: structuredClone(price) }), { named: { Tier: 'Price/properties/tiers/items' }, extended: {} });
    expect(shared.components.schemas).toEqual({
      Price: { ...price, properties: { ...price.properties, tiers: { type: 'array', items: { $ref: '#/components/schemas/Tier' } } } },
      Tier: tier,
    });
    expect(shared.paths['/prices'].get.parameters[0]!.schema).toEqual({ $ref: '#/components/schemas/Tier' });
  });

  it('writes a DTO plus fields of its own as allOf [the DTO, the own fields]', () => {
    const inForce = { type: 'object', properties: { ...structuredClone(price).properties, next: { type: 'string', nullable: true } }, required: ['id', 'tiers', 'next'] };
    const shared = shareRepeatedSchemas(documentWith({ Price: structuredClone(price), InForce: inForce }), { named: {}, extended: { InForce: 'Price' } });
    expect(shared.components.schemas.InForce).toEqual({
      allOf: [{ $ref: '#/components/schemas/Price' }, { type: 'object', properties: { next: { type: 'string', nullable: true } }, required: ['next'] }],
    });
  });

  it('keeps a base field required where the copy requires it and its base does not', () => {
    const optionalTiers = { ...structuredClone(price), required: ['id'] };
    const inForce = { type: 'object', properties: { ...structuredClone(price).properties, next: { type: 'string' } }, required: ['id', 'tiers'] };
    const shared = shareRepeatedSchemas(documentWith({ Price: optionalTiers, InForce: inForce }), { named: {}, extended: { InForce: 'Price' } });
    expect(shared.components.schemas.InForce).toEqual({
      allOf: [{ $ref: '#/components/schemas/Price' }, { type: 'object', properties: { next: { type: 'string' } }, required: ['tiers'] }],
    });
  });

  it('refuses a table entry the document no longer matches', () => {
    const document = documentWith({ Price: structuredClone(price), Other: { type: 'object', properties: { id: { type: 'integer' } } } });
    expect(() => shareRepeatedSchemas(document, { named: { Tier: 'Price/properties/gone' }, extended: {} })).toThrow('nothing at components/schemas/Price/properties/gone');
    expect(() => shareRepeatedSchemas(document, { named: { Price: 'Price/properties/tiers/items' }, extended: {} })).toThrow('Price is already a schema');
    expect(() => shareRepeatedSchemas(document, { named: {}, extended: { Other: 'Price' } })).toThrow('does not extend Price');
  });
});
