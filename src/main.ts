import 'reflect-metadata';
import { startTracing } from './start-tracing.js';

async function bootstrap() {
  // Before the app is imported: the instrumentations must see pg, ioredis and http load.
  await startTracing('api');
  const { APP_CONFIG } = await import('./config/index.js');
  const { createHttpApp } = await import('./http-app.js');
  const app = await createHttpApp();
  const config = app.get<import('./config/index.js').AppConfig>(APP_CONFIG);
  await app.listen(config.PORT, config.HOST);
}

bootstrap().catch((error: unknown) => {
  // Config errors (ConfigError, also the tracing variables') name the bad variable; print them plainly and stop.
  console.error(error instanceof Error && error.name === 'ConfigError' ? error.message : error);
  process.exit(1);
});
