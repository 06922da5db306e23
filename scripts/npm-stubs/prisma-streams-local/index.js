// Only `prisma dev` (Prisma's local Postgres) imports this; the project runs its own Postgres
// (docker compose, DATABASE_URL). The real package needs Node 22 and warned on every Node 20 install.
export async function startLocalDurableStreamsServer() {
  throw new Error('`prisma dev` is not set up in this project (see package.json overrides): use the Postgres of docker compose and DATABASE_URL');
}
