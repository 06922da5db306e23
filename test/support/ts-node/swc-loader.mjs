// Node ESM loader hooks that run the TypeScript sources the way jest does (@swc/jest with the same
// .swcrc.jest.json: decorator metadata included, which Nest DI needs and tsx/esbuild cannot emit).
// Used for child processes that run the sources (payout crash test, the security suite's log check).
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from '@swc/core';

const swcOptions = JSON.parse(await readFile(new URL('../../../.swcrc.jest.json', import.meta.url), 'utf8'));

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    // Relative imports are written with .js (NodeNext); the file on disk is .ts.
    if ((specifier.startsWith('.') || specifier.startsWith('/')) && specifier.endsWith('.js')) {
      return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
    }
    throw error;
  }
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const filename = fileURLToPath(url);
  const { code } = await transform(await readFile(filename, 'utf8'), { ...swcOptions, filename, swcrc: false });
  return { format: 'module', source: code, shortCircuit: true };
}
