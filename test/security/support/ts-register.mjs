// `node --import ./test/security/support/ts-register.mjs src/main.ts`: runs the TypeScript sources
// in a child process the way jest does (@swc/jest's options from .swcrc.jest.json, decorator
// metadata included, which Nest DI needs and tsx/esbuild cannot emit). Used to read the real
// process's log output.
import { register } from 'node:module';

register('./ts-loader.mjs', import.meta.url);
