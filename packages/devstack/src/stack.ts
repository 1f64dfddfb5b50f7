import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

/**
 * The services, in start order (the executor first: the others ask it for tools). The messaging
 * service is the last and starts only when asked for (`scale.messaging`): it needs a WhatsApp number.
 */
export const SERVICES = [
  'mcp-executor',
  'validator',
  'logger',
  'router',
  'agent',
  'gateway',
  'messaging',
] as const;
export type ServiceName = (typeof SERVICES)[number];

/** Instances of a service when `scale` does not say: one, and none of the optional messaging service. */
const defaultScale = (service: ServiceName) => (service === 'messaging' ? 0 : 1);

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface StackOptions {
  /** Environment of every service (NATS_URL, NATS_PREFIX, DATABASE_URL, MCP_SERVER_URL, …). */
  env: Record<string, string | undefined>;
  /** Settings of one service only, over `env`: e.g. its own NATS_USER and NATS_PASSWORD. */
  serviceEnv?: Partial<Record<ServiceName, Record<string, string | undefined>>>;
  /**
   * Settings of one instance only, over `serviceEnv`, by its 1-based index among its service's
   * instances: e.g. a second gateway's own PORT (two gateways cannot share a port).
   */
  instanceEnv?: (service: ServiceName, index: number) => Record<string, string | undefined> | undefined;
  /** Instances per service; 1 when not given (messaging: 0). */
  scale?: Partial<Record<ServiceName, number>> | undefined;
  /** Called with each instance right after it is spawned (e.g. to put it under a CPU limit). */
  onSpawn?: (instance: ServiceProcess) => void;
  /** Every output line of every instance. */
  onLine?: (instance: string, line: string, stream: 'stdout' | 'stderr') => void;
  /** How long to wait for /readyz, in ms. */
  readyTimeoutMs?: number;
  /** The checkout whose services run (another worktree, for an A/B benchmark); this one when not given. */
  root?: string;
}

export interface ServiceProcess {
  service: ServiceName;
  index: number;
  name: string;
  child: ChildProcess;
  /** This instance's own settings (from `instanceEnv` and `spawn`), to start a like one again. */
  ownEnv: Record<string, string | undefined>;
  /** A gateway's URL (its own PORT); undefined for the other services. */
  url: string | undefined;
}

export interface RunningStack {
  /** The first gateway's URL. */
  gatewayUrl: string;
  /** Every gateway started with the stack, by instance (one per PORT). */
  gatewayUrls: string[];
  processes: ServiceProcess[];
  /** Starts one more instance of a service, with its own settings over the others (e.g. a PORT). */
  spawn(service: ServiceName, ownEnv?: Record<string, string | undefined>): ServiceProcess;
  /** Sends a signal to one instance and waits for it to exit. */
  kill(instance: ServiceProcess, signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM to every instance, SIGKILL to those still running after the deadline. */
  stop(deadlineMs?: number): Promise<void>;
}

/** Starts every service as its own process and resolves when the gateway says all are ready. */
export async function startStack(opts: StackOptions): Promise<RunningStack> {
  const processes: ServiceProcess[] = [];
  const counters = new Map<ServiceName, number>();
  const exits: string[] = [];
  // The last lines of each instance, so a failed start says why.
  const tails = new Map<string, string[]>();

  const spawnOne = (service: ServiceName, extra: Record<string, string | undefined> = {}): ServiceProcess => {
    const index = (counters.get(service) ?? 0) + 1;
    counters.set(service, index);
    const name = `${service}#${index}`;
    const ownEnv = { ...opts.instanceEnv?.(service, index), ...extra };
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...opts.env,
      ...opts.serviceEnv?.[service],
      ...ownEnv,
      SERVICE_INSTANCE: name,
    };
    const child = spawn(process.execPath, [`services/${service}/src/main.ts`], {
      cwd: opts.root ?? ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of ['stdout', 'stderr'] as const) {
      let buffer = '';
      child[stream]?.on('data', (chunk: Buffer) => {
        buffer += chunk.toString();
        let nl = buffer.indexOf('\n');
        while (nl >= 0) {
          const line = buffer.slice(0, nl);
          const tail = tails.get(name) ?? [];
          tail.push(line);
          tails.set(name, tail.slice(-5));
          opts.onLine?.(name, line, stream);
          buffer = buffer.slice(nl + 1);
          nl = buffer.indexOf('\n');
        }
      });
    }
    child.on('exit', (code, signal) => exits.push(`${name} exited (${signal ?? code})`));
    const url = service === 'gateway' ? `http://127.0.0.1:${env.PORT ?? '8080'}` : undefined;
    const proc = { service, index, name, child, ownEnv, url };
    processes.push(proc);
    opts.onSpawn?.(proc);
    return proc;
  };

  const kill = async (proc: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
    const exited = once(proc.child, 'exit');
    proc.child.kill(signal);
    await exited;
  };

  const stop = async (deadlineMs = 15_000) => {
    const running = processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null);
    const timer = setTimeout(() => {
      for (const p of running) p.child.kill('SIGKILL');
    }, deadlineMs);
    await Promise.all(running.map((p) => kill(p)));
    clearTimeout(timer);
  };

  for (const service of SERVICES) {
    for (let i = 0; i < (opts.scale?.[service] ?? defaultScale(service)); i++) spawnOne(service);
  }

  const gatewayUrls = [
    ...new Set(processes.flatMap((p) => (p.service === 'gateway' && p.url ? [p.url] : []))),
  ];
  const gatewayUrl = gatewayUrls[0] ?? `http://127.0.0.1:${opts.env.PORT ?? '8080'}`;
  const waiting = new Set(gatewayUrls.length > 0 ? gatewayUrls : [gatewayUrl]);
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  let last = '';
  while (Date.now() < deadline) {
    if (exits.length > 0) {
      await stop();
      const first = exits[0]?.split(' ')[0] ?? '';
      throw new Error(
        `a service stopped during start: ${exits.join(', ')}\n${first} said:\n${(tails.get(first) ?? []).join('\n')}`,
      );
    }
    // Every gateway says all are ready (each on its own port).
    for (const url of [...waiting]) {
      try {
        const res = await fetch(`${url}/readyz`);
        last = `${url}: ${res.status} ${await res.text()}`;
        if (res.ok) waiting.delete(url);
      } catch (error) {
        last = `${url}: ${String(error)}`;
      }
    }
    if (waiting.size === 0) return { gatewayUrl, gatewayUrls, processes, spawn: spawnOne, kill, stop };
    await new Promise((r) => setTimeout(r, 200));
  }
  await stop();
  throw new Error(`the stack was not ready in time; last /readyz: ${last}`);
}
