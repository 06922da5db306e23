import { Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { ApiLogController, PinoNestLogger, requestIdOf } from './api-logger.js';

function capture(level = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('requestIdOf', () => {
  const req = (id?: string) => ({ headers: id === undefined ? {} : { 'x-request-id': id } }) as unknown as IncomingMessage;

  it("keeps a caller's well-formed X-Request-Id and replaces anything else with a UUID", () => {
    expect(requestIdOf(req('gw-trace.42_a'))).toBe('gw-trace.42_a');
    for (const bad of [undefined, '', 'has space', 'x'.repeat(129), 'new\nline']) {
      expect(requestIdOf(req(bad))).toMatch(/^[0-9a-f-]{36}$/);
    }
  });
});

describe('ApiLogController', () => {
  async function completed(status: number, error: Error | null, level = 'info') {
    const { logger, lines } = capture(level);
    const reply = { statusCode: status, elapsedTime: 1.5, log: logger } as unknown as FastifyReply;
    const request = { method: 'POST', url: '/v1/usage-events' } as unknown as FastifyRequest;
    new ApiLogController().requestCompleted(error, request, reply);
    await flush();
    return lines;
  }

  it('logs one line per request at a level that follows the status', async () => {
    expect((await completed(201, null))[0]).toMatchObject({ level: 30, msg: 'request completed', res: { statusCode: 201 }, req: { method: 'POST', url: '/v1/usage-events' } });
    expect((await completed(404, null))[0]).toMatchObject({ level: 40 });
    expect((await completed(503, null))[0]).toMatchObject({ level: 50 });
    expect((await completed(200, new Error('boom')))[0]).toMatchObject({ level: 50, msg: 'request errored', err: { message: 'boom' } });
  });

  it('writes nothing below the configured level', async () => {
    expect(await completed(201, null, 'warn')).toEqual([]);
    expect(await completed(400, null, 'warn')).toHaveLength(1);
  });
});

describe('PinoNestLogger', () => {
  it("maps Nest's levels and keeps the context and an error's stack", async () => {
    const { logger, lines } = capture('trace');
    const nest = new PinoNestLogger(logger);
    nest.log('started', 'NestFactory');
    nest.error('failed', 'Error: failed\n    at x', 'Worker');
    nest.warn({ detail: 1 }, 'Ctx');
    nest.verbose('chatty');
    nest.error(new Error('thrown'));
    await flush();
    expect(lines.map((l) => [l.level, l.msg, l.context])).toEqual([
      [30, 'started', 'NestFactory'],
      [50, 'failed', 'Worker'],
      [40, undefined, 'Ctx'],
      [10, 'chatty', undefined],
      [50, 'thrown', undefined],
    ]);
    expect(lines[1]!.stack).toContain('Error: failed');
    expect(lines[2]!.detail).toBe(1);
  });
});
