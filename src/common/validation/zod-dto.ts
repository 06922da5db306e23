// nestjs-zod's DTOs, with nullable fields described as OpenAPI 3.0 reads them. zod 4 writes a
// nullable primitive as `type: ["string", "null"]` (JSON Schema 2020); @nestjs/swagger takes an
// array `type` for "an array of", so `/docs-json` (and the SDK generated from it) described every
// nullable string as an array of strings. Here `type: [T, "null"]` becomes `type: T, nullable: true`
// before Swagger reads the metadata.
import { createZodDto as createNestZodDto } from 'nestjs-zod';

type JsonSchemaNode = Record<string, unknown>;

/** Rewrites every `type: [T, "null"]` in a schema tree to `type: T, nullable: true`, and `[A, B]` to anyOf (in place). */
export function nullableTypeArraysToOpenApi30(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) nullableTypeArraysToOpenApi30(item);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const schema = node as JsonSchemaNode;
  const type = schema.type;
  if (Array.isArray(type)) {
    const others = type.filter((t) => t !== 'null');
    if (others.length === 1) schema.type = others[0];
    else {
      // ["number", "string"]: one of several types, which 3.0 spells with anyOf.
      delete schema.type;
      schema.anyOf = others.map((t) => ({ type: t }));
    }
    if (others.length < type.length) schema.nullable = true;
  }
  for (const value of Object.values(schema)) nullableTypeArraysToOpenApi30(value);
}

export const createZodDto: typeof createNestZodDto = ((schema: Parameters<typeof createNestZodDto>[0]) => {
  const Dto = createNestZodDto(schema) as unknown as { _OPENAPI_METADATA_FACTORY(): unknown; Output?: { _OPENAPI_METADATA_FACTORY(): unknown } };
  wrapMetadataFactory(Dto);
  // The Output DTO (response bodies) is built on first access: wrap it too.
  const descriptor = Object.getOwnPropertyDescriptor(Dto, 'Output');
  if (descriptor?.get) {
    const get = descriptor.get;
    // One Output per class that reads it (a subclass names its own Output DTO).
    const outputs = new WeakMap<object, unknown>();
    Object.defineProperty(Dto, 'Output', {
      configurable: true,
      get(this: object) {
        if (!outputs.has(this)) outputs.set(this, wrapMetadataFactory(get.call(this) as { _OPENAPI_METADATA_FACTORY(): unknown }));
        return outputs.get(this);
      },
    });
  }
  return Dto;
}) as unknown as typeof createNestZodDto;

function wrapMetadataFactory<T extends { _OPENAPI_METADATA_FACTORY(): unknown }>(Dto: T): T {
  const factory = Dto._OPENAPI_METADATA_FACTORY.bind(Dto);
  Object.defineProperty(Dto, '_OPENAPI_METADATA_FACTORY', {
    configurable: true,
    value: () => {
      const metadata = factory() as Record<string, JsonSchemaNode>;
      nullableTypeArraysToOpenApi30(metadata);
      // Swagger needs a type on each property; nestjs-zod marks an empty one and rebuilds it.
      for (const property of Object.values(metadata)) if (property.type === undefined && Array.isArray(property.anyOf)) property.type = '';
      return metadata;
    },
  });
  return Dto;
}
