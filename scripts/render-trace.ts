// tsx scripts/render-trace.ts SPANS.json OUT.png: draws the spans an OTLP receiver got (as
// written by test/observability/tracing.e2e-spec.ts with TRACE_PICTURE=SPANS.json) as a timeline,
// one bar per span, children under their parent, as the trace views of Jaeger or Tempo do.
import { readFileSync, writeFileSync } from 'node:fs';
import { Resvg } from '@resvg/resvg-js';

interface SpanRow {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  startNs: string;
  endNs: string;
  service: string;
  attributes: Record<string, unknown>;
  links: Array<{ spanId: string }>;
}

const ROW_PX = 26;
const LABEL_PX = 430;
const BAR_PX = 620;
const INDENT_PX = 14;
const HEADER_PX = 54;
const ROWS_MAX = 60;
const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function ordered(spans: SpanRow[]): Array<{ span: SpanRow; depth: number }> {
  const ids = new Set(spans.map((s) => s.spanId));
  const children = new Map<string, SpanRow[]>();
  for (const s of spans) {
    const parent = ids.has(s.parentSpanId) ? s.parentSpanId : '';
    children.set(parent, [...(children.get(parent) ?? []), s]);
  }
  const out: Array<{ span: SpanRow; depth: number }> = [];
  const walk = (parent: string, depth: number) => {
    for (const s of (children.get(parent) ?? []).sort((a, b) => (BigInt(a.startNs) < BigInt(b.startNs) ? -1 : 1))) {
      out.push({ span: s, depth });
      walk(s.spanId, depth + 1);
    }
  };
  walk('', 0);
  return out.slice(0, ROWS_MAX);
}

export function renderTraceSvg(spans: SpanRow[]): string {
  const rows = ordered(spans);
  const start = rows.reduce((m, r) => (BigInt(r.span.startNs) < m ? BigInt(r.span.startNs) : m), BigInt(rows[0]!.span.startNs));
  const end = rows.reduce((m, r) => (BigInt(r.span.endNs) > m ? BigInt(r.span.endNs) : m), 0n);
  const totalNs = Number(end - start) || 1;
  const width = LABEL_PX + BAR_PX + 110;
  const height = HEADER_PX + rows.length * ROW_PX + 16;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="bold">trace ${rows[0]!.span.traceId}</text>`,
    `<text x="12" y="42" fill="#555">${rows.length} spans, ${(totalNs / 1e6).toFixed(2)} ms, as received over OTLP/HTTP</text>`,
  ];
  rows.forEach(({ span, depth }, i) => {
    const y = HEADER_PX + i * ROW_PX;
    const x0 = LABEL_PX + (Number(BigInt(span.startNs) - start) / totalNs) * BAR_PX;
    const w = Math.max(2, (Number(BigInt(span.endNs) - BigInt(span.startNs)) / totalNs) * BAR_PX);
    const color = span.name.startsWith('pg') ? '#336791' : span.name.startsWith('usage.') ? '#d9822b' : span.name.startsWith('chain') || span.name.startsWith('payout') ? '#8e44ad' : '#2e8b57';
    const extra = span.attributes['usage.group_commit.events'] !== undefined ? ` (events=${span.attributes['usage.group_commit.events']}, links=${span.links.length})` : '';
    if (i % 2 === 0) parts.push(`<rect x="0" y="${y}" width="${width}" height="${ROW_PX}" fill="#f6f6f6"/>`);
    parts.push(`<text x="${12 + depth * INDENT_PX}" y="${y + 17}">${escapeXml((span.name + extra).slice(0, 62))}</text>`);
    parts.push(`<rect x="${x0.toFixed(1)}" y="${y + 6}" width="${w.toFixed(1)}" height="${ROW_PX - 12}" rx="2" fill="${color}"/>`);
    parts.push(`<text x="${(x0 + w + 4).toFixed(1)}" y="${y + 17}" fill="#555">${(Number(BigInt(span.endNs) - BigInt(span.startNs)) / 1e6).toFixed(2)} ms</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: tsx scripts/render-trace.ts SPANS.json OUT.png');
  process.exit(2);
}
const spans = JSON.parse(readFileSync(input, 'utf8')) as SpanRow[];
writeFileSync(output, new Resvg(renderTraceSvg(spans), { font: { loadSystemFonts: true }, fitTo: { mode: 'original' } }).render().asPng());
console.log(`${output}: ${spans.length} spans`);
