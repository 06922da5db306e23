import 'reflect-metadata';
import { startTracing } from './start-tracing.js';

async function bootstrap() {
  // Before the worker is imported: the instrumentations must see pg, ioredis and http load.
  await startTracing('worker');
  const { NestFactory } = await import('@nestjs/core');
  const { parseEnv } = await import('./config/index.js');
  const { createApiLogger, PinoNestLogger } = await import('./common/logging/api-logger.js');
  const { WorkerModule } = await import('./worker.module.js');
  // The API's pino logger (same redaction, trace ids and JSON lines) for Nest's messages: the
  // worker serves no HTTP, so it needs no request logging (nestjs-pino's pino-http middleware).
  const logger = new PinoNestLogger(createApiLogger(parseEnv(process.env).LOG_LEVEL));
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(), { bufferLogs: true });
  app.useLogger(logger);
  app.enableShutdownHooks();
  await app.init();
  logger.log('worker started');
}

bootstrap().catch((error: unknown) => {
  // Config errors (ConfigError, also the tracing variables') name the bad variable; print them plainly and stop.
  console.error(error instanceof Error && error.name === 'ConfigError' ? error.message : error);
  process.exit(1);
});
