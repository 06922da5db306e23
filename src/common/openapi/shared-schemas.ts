// nestjs-zod writes every nested zod schema out in full where it is used: a list answer repeats its
// item's DTO, a "version in force" repeats the price with its next version, two import answers
// repeat the same catalog summary. A client generated from the document (the SDK's
// openapi-typescript types, and the console through them) then gets one anonymous copy per place
// instead of one named type. This pass gives each shape one entry in components/schemas and points
// every identical copy at it with a $ref. Only schemas equal to the letter are shared, so the
// document describes exactly the same requests and answers as before (every path, field, code).

type Schema = Record<string, unknown>;

interface OpenApiDocument {
  paths?: object;
  components?: { schemas?: Record<string, object> };
}

/**
 * Shapes repeated in several DTOs that are no DTO of their own: the name each is given in
 * components/schemas, and where its first copy stands (below components/schemas).
 */
export const NAMED_SHAPES: Readonly<Record<string, string>> = {
  PriceTier: 'PriceResponseDto/properties/tiers/items',
  PriceCatalogSummary: 'PriceImportResponseDto/properties/catalog',
  PriceImportSkipped: 'PriceImportResponseDto/properties/skipped/items',
  PriceImportDropped: 'PriceImportResponseDto/properties/dropped/items',
  ContributorBalances: 'ContributorWithBalancesResponseDto/properties/balances',
};

/**
 * Inline objects that are a named schema plus fields of their own (where they stand -> the schema
 * they extend): written as allOf [the named schema, the own fields].
 */
export const EXTENDED_SHAPES: Readonly<Record<string, string>> = {
  'PriceListResponseDto/properties/data/items': 'PriceResponseDto',
};

const SCHEMA_REF_PREFIX = '#/components/schemas/';

/** JSON with sorted keys: two schemas are the same shape exactly when these strings are equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function schemaAt(schemas: Record<string, Schema>, pointer: string): Schema {
  const found = pointer.split('/').reduce<unknown>((node, key) => (isSchema(node) ? node[key] : undefined), schemas);
  if (!isSchema(found)) throw new Error(`OpenAPI shared schemas: nothing at components/schemas/${pointer}`);
  return found;
}

function extend(schemas: Record<string, Schema>, pointer: string, baseName: string): void {
  const schema = schemaAt(schemas, pointer);
  const base = schemaAt(schemas, baseName);
  const properties = schema.properties as Record<string, unknown>;
  const baseProperties = base.properties as Record<string, unknown>;
  const ownNames = Object.keys(properties).filter((name) => !(name in baseProperties));
  const required = (schema.required ?? []) as string[];
  const baseRequired = (base.required ?? []) as string[];
  const sameBase =
    Object.keys(baseProperties).every((name) => canonical(properties[name]) === canonical(baseProperties[name])) &&
    baseRequired.every((name) => required.includes(name)) &&
    canonical({ ...schema, properties: undefined, required: undefined }) === canonical({ ...base, properties: undefined, required: undefined });
  if (!sameBase) throw new Error(`OpenAPI shared schemas: components/schemas/${pointer} does not extend ${baseName}`);
  const own: Schema = { type: 'object', properties: Object.fromEntries(ownNames.map((name) => [name, properties[name]])) };
  // Every field the copy requires and its base does not, own or the base's: a base field that is
  // optional in the base but required here stays required (allOf: both parts must hold).
  const ownRequired = required.filter((name) => !baseRequired.includes(name));
  if (ownRequired.length > 0) own.required = ownRequired;
  for (const key of Object.keys(schema)) delete schema[key];
  schema.allOf = [{ $ref: `${SCHEMA_REF_PREFIX}${baseName}` }, own];
}

/**
 * The $ref (nullable where the copy is) that replaces a copy of a named schema, if it is one. A
 * nullable copy keeps its `type` beside the allOf: OpenAPI 3.0.3 lets `nullable` add null only to
 * a `type` stated in the same schema object, so strict validators ignore it without one.
 */
function refFor(node: Schema, names: Map<string, string>): Schema | undefined {
  const name = names.get(canonical(node));
  if (name) return { $ref: `${SCHEMA_REF_PREFIX}${name}` };
  if (node.nullable !== true) return undefined;
  const nullableName = names.get(canonical({ ...node, nullable: undefined }));
  if (!nullableName) return undefined;
  const typed = node.type === undefined ? {} : { type: node.type };
  return { ...typed, allOf: [{ $ref: `${SCHEMA_REF_PREFIX}${nullableName}` }], nullable: true };
}

/** Replaces, below `node` (not `node` itself), every copy of a named schema with its $ref. */
function shareBelow(node: unknown, names: Map<string, string>): void {
  if (Array.isArray(node)) {
    node.forEach((child: unknown, i) => {
      const ref = isSchema(child) ? refFor(child, names) : undefined;
      if (ref) node[i] = ref;
      else shareBelow(child, names);
    });
  } else if (isSchema(node)) {
    for (const [key, child] of Object.entries(node)) {
      const ref = isSchema(child) && key !== 'properties' ? refFor(child, names) : undefined;
      if (ref) node[key] = ref;
      else shareBelow(child, names);
    }
  }
}

export interface SharedSchemaOptions {
  /** Defaults to NAMED_SHAPES. */
  named?: Readonly<Record<string, string>>;
  /** Defaults to EXTENDED_SHAPES. */
  extended?: Readonly<Record<string, string>>;
}

/**
 * The document with each repeated schema written once (a copy; the argument is not changed). A
 * table entry that no longer matches the document (moved, renamed, no longer an extension) throws,
 * so the API does not start with a stale table.
 */
export function shareRepeatedSchemas<T extends OpenApiDocument>(document: T, options: SharedSchemaOptions = {}): T {
  const { named = NAMED_SHAPES, extended = EXTENDED_SHAPES } = options;
  const shared = structuredClone(document);
  const schemas = shared.components?.schemas as Record<string, Schema> | undefined;
  if (!schemas) return shared;
  for (const [name, pointer] of Object.entries(named)) {
    if (name in schemas) throw new Error(`OpenAPI shared schemas: ${name} is already a schema`);
    schemas[name] = structuredClone(schemaAt(schemas, pointer));
  }
  for (const [pointer, baseName] of Object.entries(extended)) extend(schemas, pointer, baseName);
  const names = new Map(Object.entries(schemas).map(([name, schema]) => [canonical(schema), name]));
  for (const schema of Object.values(schemas)) shareBelow(schema, names);
  shareBelow(shared.paths, names);
  return shared;
}
