// The soak's faults, fired while a step's operations are in flight: kill -9 of an API, a worker or
// the SDK gateway (restarted at once, same port, same outbox), a Postgres restart (fast shutdown or
// kill -9 of the postmaster and its backends), a Redis kill -9 and restart (append-only file), an
// Anvil reorg of the last blocks (never below the setup), and a step of the soak's clock (the
// events' occurred_at: the service's own clock is the machine's, so the step is applied there,
// within the allowed future skew; the planner already moved the offset).
import { anvilReorg } from '../lib/devchain.js';
import type { SoakContext } from './soak-ops-context.js';
import type { PlannedFault } from './soak-schedule.js';
import { blockNumber } from './soak-stack.js';

export async function runFault(ctx: SoakContext, fault: PlannedFault): Promise<string> {
  const { stack } = ctx;
  switch (fault.fault) {
    case 'kill_api': {
      const api = stack.apis[fault.index]!;
      await api.restart();
      return `${api.name} killed and restarted`;
    }
    case 'kill_worker': {
      const worker = stack.workers[fault.index]!;
      await worker.restart();
      return `${worker.name} killed and restarted`;
    }
    case 'kill_sdk':
      await stack.sdk.restart();
      return 'sdk gateway killed and restarted';
    case 'restart_postgres':
      if (fault.how === 'crash') await stack.postgres.crash();
      else await stack.postgres.stop();
      await stack.postgres.start();
      return `postgres ${fault.how === 'crash' ? 'killed -9' : 'stopped'} and started`;
    case 'restart_redis':
      await stack.redis.crash();
      await stack.redis.start();
      return 'redis killed -9 and started (append-only file)';
    case 'anvil_reorg': {
      const head = await blockNumber(stack.devchain.rpcUrl);
      const depth = Math.min(fault.depth, Number(head - stack.baseBlock));
      if (depth < 1) return 'anvil reorg skipped (no block since the setup)';
      await anvilReorg(stack.devchain.rpcUrl, depth);
      return `anvil reorg of the last ${depth} block(s) (their transactions dropped)`;
    }
    case 'clock_step':
      return `clock stepped to ${fault.offset_ms >= 0 ? '+' : ''}${Math.round(fault.offset_ms / 1000)} s`;
  }
}
