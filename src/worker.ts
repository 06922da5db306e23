import 'reflect-metadata';
import { startTracing } from './start-tracing.js';

async function bootstrap() {
  // Before the worker is imported: the instrumentations must see pg, ioredis and http load.
  await startTracing('worker');
  const { NestFactory } = await import('@nestjs/core');
  const { Logger } = await import('nestjs-pino');
  const { WorkerModule } = await import('./worker.module.js');
  const app = await NestFactory.createApplicationContext(WorkerModule.forRoot(), { bufferLogs: true });
  app.useLogger(app.get(Logger));
  app.enableShutdownHooks();
  await app.init();
  app.get(Logger).log('worker started');
}

bootstrap().catch((error: unknown) => {
  // Config errors (ConfigError, also the tracing variables') name the bad variable; print them plainly and stop.
  console.error(error instanceof Error && error.name === 'ConfigError' ? error.message : error);
  process.exit(1);
});
