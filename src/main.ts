import 'reflect-metadata';
import { APP_CONFIG, type AppConfig, ConfigError } from './config/index.js';
import { createHttpApp } from './http-app.js';

async function bootstrap() {
  const app = await createHttpApp();
  const config = app.get<AppConfig>(APP_CONFIG);
  await app.listen(config.PORT, '0.0.0.0');
}

bootstrap().catch((error: unknown) => {
  // Config errors name the bad variable; print them plainly and stop.
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
