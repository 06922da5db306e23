import { isDatabaseUnavailable, isNumericOutOfRange } from './database-errors.js';

describe('isNumericOutOfRange', () => {
  it('recognizes SQLSTATE 22003 on the driver error or a wrapped cause', () => {
    expect(isNumericOutOfRange(Object.assign(new Error('numeric field overflow'), { code: '22003' }))).toBe(true);
    expect(isNumericOutOfRange(new Error('wrapped', { cause: Object.assign(new Error('numeric field overflow'), { code: '22003' }) }))).toBe(true);
  });

  it('leaves other errors alone', () => {
    expect(isNumericOutOfRange(Object.assign(new Error('unique'), { code: '23505' }))).toBe(false);
    expect(isNumericOutOfRange(new Error('plain'))).toBe(false);
    expect(isNumericOutOfRange(undefined)).toBe(false);
  });
});

describe('isDatabaseUnavailable', () => {
  it('recognizes pg driver errors: refused connection, admin shutdown, lost client', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Client has encountered a connection error and is not queryable'))).toBe(true);
  });

  it('recognizes Prisma errors through @prisma/adapter-pg (the API-key lookup, repositories on Prisma)', () => {
    // As thrown by prisma.apiKey.findFirst() with Postgres down (observed in the reliability run).
    const adapterError = Object.assign(new Error('DatabaseNotReachable'), { name: 'DriverAdapterError', cause: { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 } });
    expect(isDatabaseUnavailable(Object.assign(new Error('Invalid `prisma.apiKey.findFirst()` invocation'), { code: 'P1001', meta: { driverAdapterError: adapterError } }))).toBe(true);
    const closed = Object.assign(new Error('ConnectionClosed'), { cause: { kind: 'ConnectionClosed' } });
    expect(isDatabaseUnavailable(Object.assign(new Error('invocation failed'), { code: 'P2010', meta: { driverAdapterError: closed } }))).toBe(true);
    const shutdown = Object.assign(new Error('postgres'), { cause: { kind: 'postgres', code: '57P01', message: 'terminating connection' } });
    expect(isDatabaseUnavailable(Object.assign(new Error('invocation failed'), { code: 'P2010', meta: { driverAdapterError: shutdown } }))).toBe(true);
  });

  it('leaves data errors alone', () => {
    const unique = Object.assign(new Error('UniqueConstraintViolation'), { cause: { kind: 'UniqueConstraintViolation' } });
    expect(isDatabaseUnavailable(Object.assign(new Error('Unique constraint failed'), { code: 'P2002', meta: { driverAdapterError: unique } }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
