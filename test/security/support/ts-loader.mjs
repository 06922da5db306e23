// Node ESM loader hooks for ts-register.mjs: .js specifiers fall back to .ts, .ts goes through swc.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { transform } from '@swc/core';

const swcOptions = JSON.parse(await readFile(new URL('../../../.swcrc.jest.json', import.meta.url), 'utf8'));

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
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
