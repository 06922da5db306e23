// The console's build (`npm run build:web`, part of `npm run build`), dev server
// (`npm run dev:web`, proxying the API at API_URL) and Vitest (`npm run test:web`).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));
const apiUrl = process.env.API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root,
  // Served by the API under /console/ (src/common/http/console-static.ts).
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline script or data: module under the strict CSP.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 1024,
    rolldownOptions: {
      // React Query and Recharts mark modules "use client" (for server components); meaningless in an SPA.
      onwarn(warning, warn) {
        if (warning.code === 'MODULE_LEVEL_DIRECTIVE') return;
        warn(warning);
      },
    },
  },
  server: {
    host: '127.0.0.1',
    port: Number(process.env.WEB_PORT ?? 5173),
    proxy: {
      '/v1': apiUrl,
      '/console/config.json': apiUrl,
    },
  },
  test: {
    root,
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'happy-dom',
  },
});
