// A SqlRunner over a Prisma interactive transaction, for the few writers that must add a raw
// statement (the webhook outbox) to a transaction their repositories run with Prisma: the statement
// commits or rolls back with it. Only rowCount is reported (what an insert's caller reads).
import type { PrismaTx, SqlRunner } from './database.service.js';

export function prismaSqlRunner(tx: PrismaTx): SqlRunner {
  const query = async (text: string, values: unknown[] = []) => ({ rowCount: await tx.$executeRawUnsafe(text, ...values), rows: [] });
  return { query } as unknown as SqlRunner;
}
