import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { isRetryableTransactionError } from '../common/errors/database-errors.js';
import { TableFingerprints } from './table-fingerprints.js';

export type SqlClient = pg.PoolClient;
/** Anything that runs a statement: the pool (autocommit) or a checked-out client. */
export type SqlRunner = Pick<pg.PoolClient, 'query'>;
export type PrismaTx = Parameters<Parameters<PrismaClient['$transaction']>[0]>[0];

const TRANSACTION_ATTEMPTS_MAX = 5;
const CONNECT_TIMEOUT_MS = 3_000;
const STATEMENT_TIMEOUT_MS = 30_000;

// NUMERIC comes back as text (exact), BIGINT (int8) as text too: repositories convert to bigint.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (value) => value);

/**
 * One pg pool shared by Prisma (through its driver adapter) and by the repositories' raw SQL on
 * hot paths. Only repositories and this folder touch it.
 */
@Injectable()
export class DatabaseService implements OnModuleDestroy {
  readonly pool: pg.Pool;
  readonly prisma: PrismaClient;
  /**
   * Where read-only report queries go (earnings, CSV, statements, admin lists, audit log): the
   * streaming replica of READ_DATABASE_URL, else the primary itself. Anything that moves money or
   * checks idempotency uses `pool`/`prisma` (the primary), never these: a replica may lag.
   */
  readonly readPool: pg.Pool;
  readonly readPrisma: PrismaClient;
  readonly hasReplica: boolean;
  /** Fingerprints of small cached tables, read on the primary; requests of one tick share a query. */
  readonly fingerprints: TableFingerprints;
  private readonly logger = new Logger('Database');

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.pool = this.createPool(config.DATABASE_URL, config.DATABASE_POOL_MAX, 'primary');
    this.prisma = new PrismaClient({ adapter: new PrismaPg(this.pool) });
    this.hasReplica = config.READ_DATABASE_URL !== undefined;
    this.readPool = config.READ_DATABASE_URL ? this.createPool(config.READ_DATABASE_URL, config.DATABASE_POOL_MAX, 'replica') : this.pool;
    this.readPrisma = this.hasReplica ? new PrismaClient({ adapter: new PrismaPg(this.readPool) }) : this.prisma;
    this.fingerprints = new TableFingerprints(this.pool);
  }

  private createPool(connectionString: string, max: number, role: 'primary' | 'replica'): pg.Pool {
    const pool = new pg.Pool({
      connectionString,
      max,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      statement_timeout: STATEMENT_TIMEOUT_MS,
      idleTimeoutMillis: 30_000,
    });
    // A dropped idle connection (Postgres restart) must not crash the process.
    pool.on('error', (error) => this.logger.warn(`idle ${role} database connection lost: ${error.message}`));
    return pool;
  }

  /**
   * How far the read replica is behind the primary, in seconds (0 when it has replayed all it
   * received, or when reads go to the primary). The time since the last replayed transaction
   * overstates lag on an idle primary, so it counts only while WAL is still to be replayed.
   */
  async replicaLagSeconds(): Promise<number> {
    if (!this.hasReplica) return 0;
    const result = await this.readPool.query<{ lag: string | null }>(
      `SELECT CASE WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                   ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END AS lag`,
    );
    return Math.max(0, Number(result.rows[0]?.lag ?? 0));
  }

  /** Runs fn in one transaction, retrying the whole of it on serialization failure or deadlock. */
  async transaction<T>(fn: (client: SqlClient) => Promise<T>, isolation: 'read committed' | 'repeatable read' | 'serializable' = 'read committed'): Promise<T> {
    const begin = isolation === 'serializable' ? 'BEGIN ISOLATION LEVEL SERIALIZABLE' : isolation === 'repeatable read' ? 'BEGIN ISOLATION LEVEL REPEATABLE READ' : 'BEGIN';
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.transactionOnce(begin, fn);
      } catch (error) {
        if (attempt < TRANSACTION_ATTEMPTS_MAX && isRetryableTransactionError(error)) continue;
        throw error;
      }
    }
  }

  /**
   * Runs fn in one read-only REPEATABLE READ transaction: every statement sees the same snapshot,
   * so a report assembled from several queries (a monthly statement) is consistent with itself.
   * The reports' read path: on the read replica when READ_DATABASE_URL is set.
   */
  readSnapshot<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    return this.transactionOnce('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', fn, this.readPool);
  }

  private async transactionOnce<T>(begin: string, fn: (client: SqlClient) => Promise<T>, pool: pg.Pool = this.pool): Promise<T> {
    const client = await pool.connect();
    let broken = false;
    // A checked-out client has no pool listener: a connection lost between two statements
    // (Postgres restart: FATAL 57P01, or the socket closing) is emitted as 'error' and, unheard,
    // kills the process. Heard, the next statement fails as "not queryable" (a 503, retryable).
    const onConnectionError = (error: Error) => {
      broken = true;
      this.logger.warn(`database connection lost in a transaction: ${error.message}`);
    };
    client.on('error', onConnectionError);
    try {
      await client.query(begin);
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.off('error', onConnectionError);
      client.release(broken);
    }
  }

  /**
   * Runs fn in one Prisma interactive transaction: for repositories written with Prisma. The
   * service only hands the transaction on to them (it never sees the client itself).
   */
  prismaTransaction<T>(fn: (tx: PrismaTx) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(fn);
  }

  /**
   * Runs one statement outside an explicit transaction (a single statement is atomic on its own),
   * retrying it on serialization failure or deadlock like transaction() does.
   */
  async statement<T>(fn: (runner: SqlRunner) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await fn(this.pool);
      } catch (error) {
        if (attempt < TRANSACTION_ATTEMPTS_MAX && isRetryableTransactionError(error)) continue;
        throw error;
      }
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async onModuleDestroy(): Promise<void> {
    await this.prisma.$disconnect().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
    if (this.hasReplica) {
      await this.readPrisma.$disconnect().catch(() => undefined);
      await this.readPool.end().catch(() => undefined);
    }
  }
}
