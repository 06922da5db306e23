// A throwaway Redis Cluster (3 masters, 3 replicas) on free ports in a temporary directory, for
// tests and benchmarks of REDIS_CLUSTER_NODES (docs/scaling.md). Real cluster mode, real failover.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findFreePort, LOOPBACK_HOST } from './processes.js';

const READY_TIMEOUT_MS = 30_000;

export interface RedisClusterNodeInfo {
  port: number;
  role: 'master' | 'slave';
  /** For a master: its slot ranges as [from, to]. */
  slots: Array<[number, number]>;
  /** For a replica: the node id of its master. */
  masterId: string | null;
  id: string;
}

export interface RedisClusterHandle {
  /** `host:port,...` for REDIS_CLUSTER_NODES. */
  nodes: string;
  ports: number[];
  cli: (port: number, ...args: string[]) => string;
  topology: () => RedisClusterNodeInfo[];
  /** Promotes the replica of the master that serves `slot` (CLUSTER FAILOVER on the replica) and
   * waits until the cluster agrees; returns the old and new master ports. */
  failoverSlot: (slot: number) => Promise<{ oldMaster: number; newMaster: number }>;
  stop: () => void;
}

function cli(port: number, ...args: string[]): string {
  const result = spawnSync('redis-cli', ['-h', LOOPBACK_HOST, '-p', String(port), ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`redis-cli -p ${port} ${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

function parseNodes(text: string, ports: number[]): RedisClusterNodeInfo[] {
  return text
    .split('\n')
    .filter((line) => line.trim().length > 0)
    .map((line) => {
      const [id, address, flags, master, , , , , ...slotParts] = line.split(' ');
      const port = Number(address!.split('@')[0]!.split(':')[1]);
      const slots = slotParts.filter((part) => /^\d+(-\d+)?$/.test(part)).map((part) => {
        const [from, to] = part.split('-').map(Number);
        return [from!, to ?? from!] as [number, number];
      });
      return { id: id!, port, role: flags!.includes('master') ? 'master' : 'slave', slots, masterId: master === '-' ? null : master! } as RedisClusterNodeInfo;
    })
    .filter((node) => ports.includes(node.port));
}

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`redis cluster: ${what} within ${READY_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startRedisCluster(): Promise<RedisClusterHandle> {
  const dir = mkdtempSync(join(tmpdir(), 'ledger-redis-cluster-'));
  const ports: number[] = [];
  for (let i = 0; i < 6; i += 1) ports.push(await findFreePort());
  const processes: ChildProcess[] = ports.map((port) =>
    spawn('redis-server', ['--port', String(port), '--bind', LOOPBACK_HOST, '--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`), '--cluster-node-timeout', '2000', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' }),
  );
  const stop = () => {
    for (const child of processes) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntil(() => ports.every((port) => spawnSync('redis-cli', ['-h', LOOPBACK_HOST, '-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG'), 'nodes did not answer');
    const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((port) => `${LOOPBACK_HOST}:${port}`), '--cluster-replicas', '1', '--cluster-yes'], { encoding: 'utf8' });
    if (create.status !== 0) throw new Error(`redis-cli --cluster create: ${create.stdout}${create.stderr}`);
    await waitUntil(() => ports.every((port) => cli(port, 'cluster', 'info').includes('cluster_state:ok')), 'cluster_state did not become ok');
  } catch (error) {
    stop();
    throw error;
  }
  const topology = () => parseNodes(cli(ports[0]!, 'cluster', 'nodes'), ports);
  return {
    nodes: ports.map((port) => `${LOOPBACK_HOST}:${port}`).join(','),
    ports,
    cli,
    topology,
    failoverSlot: async (slot: number) => {
      const nodes = topology();
      const master = nodes.find((node) => node.role === 'master' && node.slots.some(([from, to]) => slot >= from && slot <= to));
      const replica = master && nodes.find((node) => node.masterId === master.id);
      if (!master || !replica) throw new Error(`redis cluster: no master with a replica serves slot ${slot}`);
      cli(replica.port, 'cluster', 'failover');
      await waitUntil(() => {
        const now = parseNodes(cli(replica.port, 'cluster', 'nodes'), ports);
        return now.find((node) => node.port === replica.port)?.role === 'master' && ports.every((port) => cli(port, 'cluster', 'info').includes('cluster_state:ok'));
      }, 'failover did not complete');
      return { oldMaster: master.port, newMaster: replica.port };
    },
    stop,
  };
}
