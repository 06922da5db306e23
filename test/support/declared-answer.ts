// An endpoint's answer against the response schema it declares (its `@ApiOkResponse` DTO's zod
// schema, which /docs-json and the generated SDK types come from): it parses, and zod, which drops
// keys a schema does not name, gives back the same body, so no field goes undocumented.
import type { z } from 'zod';

export function expectDeclaredAnswer(schema: z.ZodType, body: unknown): void {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new Error(`the answer does not match its declared schema: ${JSON.stringify(parsed.error.issues, null, 2)}\n${JSON.stringify(body, null, 2)}`);
  expect(parsed.data).toEqual(body);
}
