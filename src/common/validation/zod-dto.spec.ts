import { z } from 'zod';
import { nullableTypeArraysToOpenApi30 } from './zod-dto.js';

describe('nullableTypeArraysToOpenApi30', () => {
  it('turns the JSON Schema 2020 type arrays zod writes into OpenAPI 3.0', () => {
    const schema = z.toJSONSchema(z.object({ price: z.string().nullable(), at: z.union([z.number(), z.string()]), n: z.number().int().nullable(), list: z.array(z.string().nullable()) }), { io: 'output' }) as Record<string, unknown>;
    nullableTypeArraysToOpenApi30(schema);
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    expect(properties.price).toEqual({ type: 'string', nullable: true });
    expect(properties.at).toEqual({ anyOf: [{ type: 'number' }, { type: 'string' }] });
    expect(properties.list).toEqual({ type: 'array', items: { type: 'string', nullable: true } });
    expect(JSON.stringify(schema)).not.toMatch(/"type":\[/);
  });
});
