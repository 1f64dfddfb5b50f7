/**
 * A JetStream cluster of local `nats-server` processes for a test: free ports, one store directory
 * each under one temporary directory, routes to one another. A node can be killed (`SIGKILL`) and
 * started again on the same ports and store, as a crashed server comes back. Also used by test/e2e.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './nats-server.ts';

export interface ClusterNode {
  name: string;
  /** Client port and URL. */
  port: number;
  url: string;
  /** Monitoring port (`/jsz`, `/routez`). */
  httpPort: number;
  clusterPort: number;
  storeDir: string;
  /** Whether the process runs now. */
  running(): boolean;
  /** Everything the current process printed. */
  output(): string;
}

export interface NatsCluster {
  nodes: ClusterNode[];
  /** Every client URL, comma-separated: a `NATS_URL`. */
  url: string;
  /** Kills a node with SIGKILL and waits until its process is gone. */
  kill(index: number): Promise<void>;
  /** Starts a killed node again (same name, ports and store) and waits until it serves clients. */
  restart(index: number): Promise<void>;
  /** Waits until a running node reports a JetStream meta leader with every node as a current peer. */
  waitForMetaLeader(timeoutMs?: number): Promise<string>;
  /** `/jsz` of a running node (with `query`, e.g. `streams=true`). */
  jsz(index: number, query?: string): Promise<Jsz>;
  /** Stops every node and deletes the store. */
  stop(): Promise<void>;
}

export interface Jsz {
  meta_cluster?: {
    leader?: string;
    cluster_size?: number;
    replicas?: { name: string; current: boolean; offline?: boolean }[];
  };
}

const READY = /Server is ready/;

export async function startNatsCluster(opts: { size?: number; name?: string } = {}): Promise<NatsCluster> {
  const size = opts.size ?? 3;
  const clusterName = opts.name ?? 'munim-test';
  const root = mkdtempSync(join(tmpdir(), 'munim-cluster-'));
  const ports: { port: number; httpPort: number; clusterPort: number }[] = [];
  const taken = new Set<number>();
  const port = async () => {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const p = await freePort();
      if (!taken.has(p)) {
        taken.add(p);
        return p;
      }
    }
    throw new Error('no free port');
  };
  for (let i = 0; i < size; i += 1)
    ports.push({ port: await port(), httpPort: await port(), clusterPort: await port() });

  const children: (ChildProcess | undefined)[] = [];
  const outputs: string[] = [];
  const nodes: ClusterNode[] = ports.map((p, i) => ({
    name: `n${i + 1}`,
    port: p.port,
    url: `nats://127.0.0.1:${p.port}`,
    httpPort: p.httpPort,
    clusterPort: p.clusterPort,
    storeDir: join(root, `n${i + 1}`),
    running: () => {
      const child = children[i];
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    output: () => outputs[i] ?? '',
  }));

  const args = (i: number) => {
    const node = nodes[i] as ClusterNode;
    const routes = nodes.filter((_, j) => j !== i).map((n) => `nats://127.0.0.1:${n.clusterPort}`);
    return [
      ...['-a', '127.0.0.1', '-p', String(node.port), '-m', String(node.httpPort), '-n', node.name],
      ...['--cluster_name', clusterName, '--cluster', `nats://127.0.0.1:${node.clusterPort}`],
      ...['--routes', routes.join(',')],
      ...['-js', '-sd', node.storeDir],
    ];
  };

  const launch = async (i: number) => {
    outputs[i] = '';
    const child = spawn('nats-server', args(i), { stdio: ['ignore', 'pipe', 'pipe'] });
    children[i] = child;
    const collect = (chunk: Buffer) => {
      // Only the start-up lines matter (and a failure's tail); a long run must not grow without bound.
      const text = `${outputs[i] ?? ''}${chunk.toString()}`;
      outputs[i] = text.length > 64_000 ? text.slice(-32_000) : text;
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const deadline = Date.now() + 15_000;
    while (!READY.test(outputs[i] ?? '')) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`nats-server ${nodes[i]?.name} did not start:\n${outputs[i]}`);
      await sleep(50);
    }
  };

  const kill = async (i: number) => {
    const child = children[i];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };

  const jsz = async (i: number, query = ''): Promise<Jsz> => {
    const node = nodes[i] as ClusterNode;
    const res = await fetch(`http://127.0.0.1:${node.httpPort}/jsz${query ? `?${query}` : ''}`, {
      signal: AbortSignal.timeout(2_000),
    });
    return (await res.json()) as Jsz;
  };

  const waitForMetaLeader = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      for (let i = 0; i < size; i += 1) {
        if (!nodes[i]?.running()) continue;
        try {
          const meta = (await jsz(i)).meta_cluster;
          last = JSON.stringify(meta);
          const peers = meta?.replicas ?? [];
          const running = nodes.filter((n) => n.running()).length;
          // The leader plus every other running node, each current.
          if (meta?.leader && peers.filter((p) => p.current && !p.offline).length >= running - 1)
            return meta.leader;
        } catch (error) {
          last = String(error);
        }
      }
      await sleep(200);
    }
    throw new Error(`no JetStream meta leader within ${timeoutMs} ms (last: ${last})`);
  };

  try {
    // Together: a node waits for the others' routes before it says it is ready with JetStream.
    await Promise.all(nodes.map((_, i) => launch(i)));
    await waitForMetaLeader();
  } catch (error) {
    await Promise.all(nodes.map((_, i) => kill(i)));
    rmSync(root, { recursive: true, force: true });
    throw error;
  }

  return {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    kill,
    restart: async (i) => {
      if (nodes[i]?.running()) throw new Error(`${nodes[i]?.name} is running`);
      await launch(i);
    },
    waitForMetaLeader,
    jsz,
    stop: async () => {
      await Promise.all(
        nodes.map(async (_, i) => {
          const child = children[i];
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
          await exited;
          clearTimeout(timer);
        }),
      );
      rmSync(root, { recursive: true, force: true });
    },
  };
}
