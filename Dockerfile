# syntax=docker/dockerfile:1
# Production image of the API and the worker (one image, two commands). Build: docker build -t ledger .
# Stages: `build` compiles everything with the dev dependencies; `prod-deps` installs the production
# dependencies alone; `runtime` takes only what runs (dist/, the console's web/dist, the migrations
# and their runner) and runs as the unprivileged `node` user. docker-compose.yml also uses `build`
# for its one-shot `contracts` service (the local chain's contracts need the dev tooling).

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The local packages package.json's overrides point at (file: dependencies npm ci links).
COPY scripts/npm-stubs ./scripts/npm-stubs
RUN npm ci --no-audit --no-fund
COPY . .
# API, worker, SDK and console; then the migration runner (plain pg, no dev dependency at run time).
RUN npm run build \
 && npx tsc --ignoreConfig scripts/migrate.ts --outDir dist-migrate --module nodenext --moduleResolution nodenext --target es2022 --types node --skipLibCheck

FROM node:22-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/npm-stubs ./scripts/npm-stubs
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:22-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000
WORKDIR /app
# Owned by root, run by `node`: the service cannot rewrite its own code.
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/dist ./dist
COPY --from=build /app/dist-migrate ./dist-migrate
COPY --from=build /app/web/dist ./web/dist
COPY --from=build /app/prisma/migrations ./prisma/migrations
USER node
EXPOSE 3000
# Ready = Postgres, Redis and (when configured) the chain answer: GET /health/ready (docs/operations.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The worker: docker run ... ledger node --max-old-space-size=160 --liftoff-only dist/src/worker.js
# Migrations: docker run ... ledger node dist-migrate/migrate.js
CMD ["node", "--max-old-space-size=160", "--liftoff-only", "dist/src/main.js"]
