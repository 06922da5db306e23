// A statement as a printable one-page PDF (pdfkit: maintained, pure JavaScript, the 14 standard
// fonts built in, no browser or native binary). The same statement gives the same bytes: the
// document's dates are the period's (pdfkit derives the file id from them), never the clock.
import PDFDocument from 'pdfkit';
import { assert } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import type { BookedKind, EarningRow, Statement } from './statement.js';

const PAGE = { width: 595.28, height: 841.89, margin: 48 } as const; // A4 in points
/** Models listed by name (largest earnings first); the rest are summed on one line. */
export const PDF_MODELS_MAX = 8;
/** Booked lines (payouts, adjustments, clawbacks) listed; more are counted and left to the CSV. */
export const PDF_BOOKED_LINES_MAX = 26;
const TEXT_CHARS_MAX = 44;

const KIND_LABEL: Record<BookedKind, string> = {
  payout: 'payout',
  payout_reversed: 'payout reversed',
  adjustment: 'adjustment',
  clawback: 'clawback',
};

/** The standard fonts encode WinAnsi only: anything else is shown as '?', and long text is cut. */
export function pdfText(value: string, charsMax = TEXT_CHARS_MAX): string {
  const printable = value.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > charsMax ? `${printable.slice(0, charsMax - 3)}...` : printable;
}

export const usdText = (atto: bigint) => `${formatAttoAsUsd(atto)} USD`;

interface ModelLine {
  model: string;
  events: bigint;
  earnedAtto: bigint;
}

/** Earnings per model over the month, largest first, at most PDF_MODELS_MAX lines plus "others". */
export function earningsByModel(rows: readonly EarningRow[]): ModelLine[] {
  const byModel = new Map<string, ModelLine>();
  for (const row of rows) {
    const line = byModel.get(row.model) ?? { model: row.model, events: 0n, earnedAtto: 0n };
    line.events += row.events;
    line.earnedAtto += row.earnedAtto;
    byModel.set(row.model, line);
  }
  const sorted = [...byModel.values()].sort((a, b) => (a.earnedAtto === b.earnedAtto ? (a.model < b.model ? -1 : 1) : a.earnedAtto > b.earnedAtto ? -1 : 1));
  if (sorted.length <= PDF_MODELS_MAX) return sorted;
  const rest = sorted.slice(PDF_MODELS_MAX - 1);
  const others = rest.reduce((sum, l) => ({ ...sum, events: sum.events + l.events, earnedAtto: sum.earnedAtto + l.earnedAtto }), {
    model: `${rest.length} other models`,
    events: 0n,
    earnedAtto: 0n,
  });
  return [...sorted.slice(0, PDF_MODELS_MAX - 1), others];
}

class PageWriter {
  y = PAGE.margin + 16;
  constructor(private readonly doc: PDFKit.PDFDocument) {}

  text(value: string, x: number, options: { font?: string; size?: number; width?: number; align?: 'left' | 'right' } = {}): void {
    this.doc.font(options.font ?? 'Helvetica').fontSize(options.size ?? 9);
    // Every text on a row shares one baseline whatever its font, so the row reads back as one line.
    this.doc.text(value, x, this.y, { lineBreak: false, width: options.width, align: options.align ?? 'left', baseline: 'alphabetic' });
  }

  down(points: number): void {
    this.y += points;
    // One page by construction: the limits above keep every section on it.
    assert(this.y <= PAGE.height - PAGE.margin, 'the statement PDF ran past one page');
  }

  /** A horizontal rule just above the current baseline's text. */
  rule(): void {
    const y = this.y - 11;
    this.doc.moveTo(PAGE.margin, y).lineTo(PAGE.width - PAGE.margin, y).lineWidth(0.5).stroke();
  }
}

const RIGHT_EDGE = PAGE.width - PAGE.margin;

function writeHeader(page: PageWriter, statement: Statement): void {
  const lastDay = new Date(statement.period.to.getTime() - 1).toISOString().slice(0, 10);
  page.text('Contributor statement', PAGE.margin, { font: 'Helvetica-Bold', size: 16 });
  page.down(24);
  page.text(`Contributor: ${pdfText(statement.contributorId, 80)}`, PAGE.margin, { size: 10 });
  page.down(14);
  page.text(`Period: ${statement.period.month} (${statement.period.from.toISOString().slice(0, 10)} to ${lastDay}, UTC)`, PAGE.margin, { size: 10 });
  page.down(14);
  page.text(statement.monthEnded ? 'The month has ended.' : 'The month is not over: figures to date.', PAGE.margin, { size: 9 });
  page.down(20);
}

function writeFigures(page: PageWriter, statement: Statement): void {
  const figures: Array<[string, string]> = [
    ['Opening balance', usdText(statement.openingAtto)],
    [`Earned (${statement.events} events)`, usdText(statement.earnedAtto)],
    ['Clawed back', usdText(statement.clawedBackAtto)],
    ['Adjustments', usdText(statement.adjustmentsAtto)],
    ['Paid', usdText(statement.paidAtto)],
    ['Closing balance', usdText(statement.closingAtto)],
  ];
  page.down(4);
  page.rule();
  for (const [label, value] of figures) {
    const bold = label === 'Closing balance' || label === 'Opening balance';
    page.text(label, PAGE.margin, { font: bold ? 'Helvetica-Bold' : 'Helvetica', size: 10 });
    page.text(value, PAGE.margin + 200, { font: 'Courier', size: 10, width: RIGHT_EDGE - PAGE.margin - 200, align: 'right' });
    page.down(15);
  }
  page.rule();
  page.down(2);
  page.text('Closing = opening + earned - clawed back + adjustments - paid (exact, in USD).', PAGE.margin, { size: 8 });
  page.down(20);
}

function writeModels(page: PageWriter, statement: Statement): void {
  page.text('Earnings by model', PAGE.margin, { font: 'Helvetica-Bold', size: 11 });
  page.down(15);
  const lines = earningsByModel(statement.earnings);
  if (lines.length === 0) {
    page.text('No usage this month.', PAGE.margin, { size: 9 });
    page.down(13);
  }
  for (const line of lines) {
    page.text(pdfText(line.model), PAGE.margin, { size: 9 });
    page.text(`${line.events} events`, PAGE.margin + 250, { size: 9 });
    page.text(usdText(line.earnedAtto), PAGE.margin + 320, { font: 'Courier', size: 9, width: RIGHT_EDGE - PAGE.margin - 320, align: 'right' });
    page.down(12);
  }
  page.down(10);
}

function writeBooked(page: PageWriter, statement: Statement): void {
  page.text('Payouts, adjustments and clawbacks (as booked)', PAGE.margin, { font: 'Helvetica-Bold', size: 11 });
  page.down(15);
  if (statement.booked.length === 0) {
    page.text('None this month.', PAGE.margin, { size: 9 });
    page.down(12);
    return;
  }
  const header = (label: string, x: number) => page.text(label, x, { font: 'Helvetica-Oblique', size: 7 });
  header('booked', PAGE.margin);
  header('line', PAGE.margin + 48);
  header('effect on the balance', PAGE.margin + 170);
  header('transaction hash, or reference: note', PAGE.margin + 250);
  page.down(11);
  for (const line of statement.booked.slice(0, PDF_BOOKED_LINES_MAX)) {
    page.text(line.bookedAt.toISOString().slice(0, 10), PAGE.margin, { size: 8 });
    page.text(KIND_LABEL[line.kind], PAGE.margin + 48, { size: 8 });
    page.text(usdText(line.owedDeltaAtto), PAGE.margin + 112, { font: 'Courier', size: 8, width: 130, align: 'right' });
    // A payout's USD amount is its USDC amount exactly (whole micro-USDC); its detail is the tx hash.
    const detail = line.payout ? (line.payout.txHash ?? '(no transaction)') : pdfText(`${line.reference ?? line.ref}${line.memo ? `: ${line.memo}` : ''}`, 52);
    page.text(detail, PAGE.margin + 250, { font: line.payout ? 'Courier' : 'Helvetica', size: line.payout ? 5.5 : 8 });
    page.down(11);
  }
  const more = statement.booked.length - PDF_BOOKED_LINES_MAX;
  if (more > 0) {
    page.text(`and ${more} more lines: see the CSV statement.`, PAGE.margin, { size: 8 });
    page.down(11);
  }
}

/** Renders the statement on one A4 page; resolves with the PDF's bytes. */
export function renderStatementPdf(statement: Statement): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: PAGE.margin,
    autoFirstPage: true,
    compress: true,
    info: {
      Title: `Statement ${statement.period.month} ${pdfText(statement.contributorId, 80)}`,
      Author: 'contributor-ledger',
      CreationDate: statement.period.to,
      ModDate: statement.period.to,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const page = new PageWriter(doc);
  writeHeader(page, statement);
  writeFigures(page, statement);
  writeModels(page, statement);
  writeBooked(page, statement);
  doc.end();
  return done;
}
