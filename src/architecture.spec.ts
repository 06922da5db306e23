// docs/architecture.md tells the truth: every folder of src/modules has its line, and madge's graph
// of src (type-only imports included) runs only down the documented floors, but for the named
// upward imports (at most UPWARD_IMPORTS_MAX).
import { readdirSync, readFileSync } from 'node:fs';
import madge from 'madge';

const UPWARD_IMPORTS_MAX = 3;
const root = new URL('../', import.meta.url);
const doc = readFileSync(new URL('docs/architecture.md', root), 'utf8');

function fenced(info: string): string[] {
  const block = new RegExp('```' + info + '\\n([\\s\\S]*?)```').exec(doc);
  if (!block) throw new Error(`docs/architecture.md has no \`\`\`${info} block`);
  return block[1]!.split('\n').map((line) => line.trim()).filter((line) => line !== '');
}

/** The floor of a file of src: the most specific entry of the layer list that holds it. */
function floorOf(floors: string[][], file: string): number | null {
  let best: { floor: number; length: number } | null = null;
  floors.forEach((entries, floor) => {
    for (const entry of entries) {
      if ((file === entry || file.startsWith(`${entry}/`)) && (!best || entry.length > best.length)) best = { floor, length: entry.length };
    }
  });
  return best === null ? null : (best as { floor: number }).floor;
}

describe('docs/architecture.md', () => {
  const floors = fenced('layers').map((line) => line.split(/\s+/));
  const upward = fenced('upward-imports');

  it('has one line per module folder, and no line for a folder that does not exist', () => {
    const folders = readdirSync(new URL('src/modules/', root), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    const rows = [...doc.matchAll(/^\| `modules\/([a-z0-9-]+)\/` \|/gm)].map((match) => match[1]).sort();
    expect(rows).toEqual(folders);
    const layered = floors.flat().filter((entry) => entry.startsWith('modules/')).map((entry) => entry.slice('modules/'.length)).sort();
    expect(layered).toEqual(folders);
  });

  it('imports run down the floors, but for the named upward ones', async () => {
    const graph = (
      await madge(new URL('src/', root).pathname, {
        fileExtensions: ['ts'],
        tsConfig: new URL('tsconfig.json', root).pathname,
        excludeRegExp: [/\.spec\.ts$/, /\.d\.ts$/, /^generated\//, /(^|\/)testing\//],
        detectiveOptions: { ts: { skipTypeImports: false } },
      })
    ).obj();
    expect(Object.keys(graph).length).toBeGreaterThan(100);
    const unplaced: string[] = [];
    const wrong: string[] = [];
    const seenUpward = new Set<string>();
    for (const [from, imports] of Object.entries(graph)) {
      // Helpers of test/ reached only through specs (excluded) are not part of src.
      if (from.startsWith('../')) continue;
      const fromFloor = floorOf(floors, from);
      if (fromFloor === null) unplaced.push(from);
      for (const to of imports) {
        const toFloor = floorOf(floors, to);
        if (fromFloor === null || toFloor === null || toFloor >= fromFloor) continue;
        const edge = `${from} -> ${to}`;
        if (upward.includes(edge)) seenUpward.add(edge);
        else wrong.push(edge);
      }
    }
    expect(unplaced).toEqual([]);
    expect(wrong).toEqual([]);
    expect(upward.length).toBeLessThanOrEqual(UPWARD_IMPORTS_MAX);
    expect([...seenUpward].sort()).toEqual([...upward].sort());
  }, 120_000);
});
