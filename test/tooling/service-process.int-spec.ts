import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { productionNodeFlags } from '../../scripts/lib/service-process.js';

const REPO_PACKAGE_JSON = new URL('../../package.json', import.meta.url).pathname;

function packageJsonWith(scripts: Record<string, string>): string {
  const path = join(mkdtempSync(join(tmpdir(), 'ledger-flags-')), 'package.json');
  writeFileSync(path, JSON.stringify({ scripts }));
  return path;
}

describe('productionNodeFlags (the demo, bench and reliability services run with them)', () => {
  it('are the flags of start:prod and start:worker in package.json', () => {
    const scripts = (JSON.parse(readFileSync(REPO_PACKAGE_JSON, 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const [kind, script] of [['api', 'start:prod'], ['worker', 'start:worker']] as const) {
      const flags = productionNodeFlags(kind, REPO_PACKAGE_JSON);
      expect(scripts[script]).toBe(['node', ...flags, kind === 'api' ? 'dist/src/main.js' : 'dist/src/worker.js'].join(' '));
      // What production relies on for its memory target (docs/performance.md).
      expect(flags).toEqual(expect.arrayContaining(['--liftoff-only', expect.stringMatching(/^--max-old-space-size=\d+$/)]));
    }
  });

  it('follow a change of the start script, and refuse a script they cannot read', () => {
    expect(productionNodeFlags('api', packageJsonWith({ 'start:prod': 'node --max-old-space-size=99 dist/src/main.js' }))).toEqual(['--max-old-space-size=99']);
    expect(() => productionNodeFlags('api', packageJsonWith({ 'start:prod': 'node --x dist/src/other.js' }))).toThrow(/start:prod must be/);
    expect(() => productionNodeFlags('worker', packageJsonWith({ 'start:worker': 'npm run x' }))).toThrow(/start:worker must be/);
    expect(() => productionNodeFlags('worker', packageJsonWith({}))).toThrow(/start:worker must be/);
  });
});
