// Conversions at the repository boundary: NUMERIC/BIGINT arrive as text and become bigint.
export function toBigInt(value: string | number | bigint | null | undefined): bigint {
  if (value === null || value === undefined) throw new Error('expected a numeric value, got null');
  return BigInt(value);
}

export function toBigIntOrNull(value: string | number | bigint | null | undefined): bigint | null {
  return value === null || value === undefined ? null : BigInt(value);
}

/** A Prisma Decimal (decimal.js) holding a NUMERIC(38,0) value. */
export interface PrismaDecimal {
  toFixed(): string;
}

/**
 * Prisma returns NUMERIC as a Decimal; its toFixed() prints an integer exactly (toString may use
 * exponent notation, which BigInt cannot read).
 */
export function prismaDecimalToBigInt(value: PrismaDecimal): bigint {
  return BigInt(value.toFixed());
}
