// Conversions at the repository boundary: NUMERIC/BIGINT arrive as text and become bigint.
export function toBigInt(value: string | number | bigint | null | undefined): bigint {
  if (value === null || value === undefined) throw new Error('expected a numeric value, got null');
  return BigInt(value);
}

export function toBigIntOrNull(value: string | number | bigint | null | undefined): bigint | null {
  return value === null || value === undefined ? null : BigInt(value);
}
