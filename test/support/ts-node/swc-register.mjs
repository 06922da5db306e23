// `node --import ./test/support/ts-node/swc-register.mjs src/main.ts`: runs the TypeScript sources
// in a child process the way jest does (decorator metadata included, which Nest DI needs).
import { register } from 'node:module';

register('./swc-loader.mjs', import.meta.url);
