/**
 * The value a table holds under `key` as its own entry, undefined otherwise. Input keys
 * ("__proto__", "constructor", "toString"...) must never reach an inherited member of
 * Object.prototype, which a plain `table[key]` returns.
 */
export function ownEntry<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
