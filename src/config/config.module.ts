import { Global, Module } from '@nestjs/common';
import { parseEnv, type Env } from './config.schema.js';

/** Injection token for the parsed, typed environment. */
export const APP_CONFIG = Symbol('APP_CONFIG');
export type AppConfig = Env;

@Global()
@Module({})
export class ConfigModule {
  /** Parses process.env once; pass overrides in tests. */
  static forRoot(overrides: Partial<Record<string, string>> = {}) {
    const config = parseEnv({ ...process.env, ...overrides });
    return { module: ConfigModule, providers: [{ provide: APP_CONFIG, useValue: config }], exports: [APP_CONFIG] };
  }
}
