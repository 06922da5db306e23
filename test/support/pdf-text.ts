// Reads a PDF back as text (Mozilla's PDF.js, the legacy build meant for Node): lines top to
// bottom, each the page's text items on one baseline joined by single spaces, left to right.
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

export interface PdfText {
  pages: number;
  /** Every page's lines, in order. */
  lines: string[];
}

interface Item {
  str: string;
  x: number;
  y: number;
}

export async function pdfText(bytes: Uint8Array): Promise<PdfText> {
  const document = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, disableFontFace: true, useSystemFonts: false, verbosity: 0 }).promise;
  const lines: string[] = [];
  try {
    for (let pageNumber = 1; pageNumber <= document.numPages; pageNumber += 1) {
      const page = await document.getPage(pageNumber);
      const content = await page.getTextContent();
      const items: Item[] = [];
      for (const item of content.items) {
        if (!('str' in item) || item.str.trim() === '') continue;
        items.push({ str: item.str, x: item.transform[4] as number, y: Math.round(item.transform[5] as number) });
      }
      const byLine = new Map<number, Item[]>();
      for (const item of items) byLine.set(item.y, [...(byLine.get(item.y) ?? []), item]);
      for (const y of [...byLine.keys()].sort((a, b) => b - a)) {
        lines.push(byLine.get(y)!.sort((a, b) => a.x - b.x).map((i) => i.str.trim()).join(' '));
      }
    }
    return { pages: document.numPages, lines };
  } finally {
    await document.destroy();
  }
}
