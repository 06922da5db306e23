// Pure: which representation of a statement the Accept header asks for (RFC 9110 media ranges
// with q-values). JSON unless text/csv or application/pdf is preferred; an Accept that allows none
// of the three is still answered in JSON (the default representation) rather than refused.
export type StatementFormat = 'json' | 'csv' | 'pdf';

const MEDIA_TYPES: ReadonlyArray<[string, StatementFormat]> = [
  ['application/json', 'json'],
  ['text/csv', 'csv'],
  ['application/pdf', 'pdf'],
];
const ACCEPT_LENGTH_MAX = 1024;

interface MediaRange {
  type: string;
  q: number;
  order: number;
}

function parseAccept(header: string): MediaRange[] {
  return header
    .slice(0, ACCEPT_LENGTH_MAX)
    .split(',')
    .map((part, order) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const qParam = params.find((p) => p.startsWith('q='));
      const q = qParam === undefined ? 1 : Number(qParam.slice(2));
      return { type, q: Number.isFinite(q) ? q : 0, order };
    })
    .filter((range) => range.type.length > 0 && range.q > 0);
}

/** The format whose exact media type has the highest q (ties: first listed); JSON otherwise. */
export function statementFormatFor(accept: string | undefined): StatementFormat {
  if (accept === undefined) return 'json';
  let best: { format: StatementFormat; q: number; order: number } | null = null;
  for (const range of parseAccept(accept)) {
    const match = MEDIA_TYPES.find(([type]) => type === range.type);
    if (!match) continue;
    if (best === null || range.q > best.q || (range.q === best.q && range.order < best.order)) best = { format: match[1], q: range.q, order: range.order };
  }
  return best?.format ?? 'json';
}
