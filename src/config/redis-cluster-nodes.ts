import type { ClusterNode } from 'ioredis';

// Here rather than in queue/: the config schema parses REDIS_CLUSTER_NODES at boot, and config
// is the floor everything else stands on, so it must not import the queue layer.
/** `host:port,host:port` -> cluster start-up nodes (the rest are discovered). */
export function parseClusterNodes(text: string): ClusterNode[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const match = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(part);
      if (!match) throw new Error(`REDIS_CLUSTER_NODES: "${part}" is not host:port`);
      const port = Number(match[2]);
      if (port < 1 || port > 65535) throw new Error(`REDIS_CLUSTER_NODES: port ${port} is out of range`);
      return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
    });
}
