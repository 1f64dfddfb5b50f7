/**
 * A CPU limit per process, through the Linux cgroup CPU controller, as a pod's `resources.limits.cpu`
 * gives one: cgroup v2's `cpu.max`, or v1's `cpu.cfs_quota_us` / `cpu.cfs_period_us`, whichever
 * this machine lets us write. One group per process, under a parent of this run's
 * (`munim-bench-<pid>`), removed at the end. Everything here is synchronous, so that the groups
 * can be removed from an `exit` handler too.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { childrenOf } from './cpu.ts';

/** The CFS period Kubernetes uses: a limit of 0.15 cores is 15 ms of CPU every 100 ms. */
const PERIOD_US = 100_000;

interface Hierarchy {
  version: 'v1' | 'v2';
  /** Where this process's own group is: the parent of ours, and where processes go back to. */
  home: string;
}

/** Mount points of the cgroup file systems, from /proc/self/mounts. */
function mounts(): { type: string; dir: string; options: string[] }[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((f) => f[2] === 'cgroup' || f[2] === 'cgroup2')
    .map((f) => ({ type: f[2] ?? '', dir: f[1] ?? '', options: (f[3] ?? '').split(',') }));
}

/** This process's group in a hierarchy: the path after `<id>:<controllers>:` in /proc/self/cgroup. */
function ownPath(matches: (controllers: string[], id: string) => boolean): string | undefined {
  for (const line of readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [id = '', controllers = '', ...path] = line.split(':');
    if (line && matches(controllers.split(','), id)) return path.join(':');
  }
  return undefined;
}

/** The hierarchies that have a CPU controller, v2 first. */
function candidates(): Hierarchy[] {
  const out: Hierarchy[] = [];
  for (const m of mounts()) {
    if (m.type === 'cgroup2') {
      const path = ownPath((_, id) => id === '0');
      if (path === undefined) continue;
      // v2 lets a group with processes of its own give the controller to its children only at
      // the root: elsewhere enabling it fails, and v1 is tried.
      const home = join(m.dir, path);
      if (readWords(join(home, 'cgroup.controllers')).includes('cpu')) out.unshift({ version: 'v2', home });
    } else if (m.options.includes('cpu')) {
      const path = ownPath((controllers) => controllers.includes('cpu'));
      if (path !== undefined) out.push({ version: 'v1', home: join(m.dir, path) });
    }
  }
  return out;
}

function readWords(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').trim().split(/\s+/);
  } catch {
    return [];
  }
}

export interface Throttling {
  periods: number;
  throttled: number;
  waitedMs: number;
}

/** What a group's counters grew by between two readings. */
export function throttledBetween(
  before: Map<string, Throttling>,
  after: Map<string, Throttling>,
): Record<string, Throttling> {
  const out: Record<string, Throttling> = {};
  for (const [label, a] of after) {
    const b = before.get(label) ?? { periods: 0, throttled: 0, waitedMs: 0 };
    out[label] = {
      periods: a.periods - b.periods,
      throttled: a.throttled - b.throttled,
      waitedMs: a.waitedMs - b.waitedMs,
    };
  }
  return out;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The processes of a group (none when it is gone). */
function members(dir: string): number[] {
  return readWords(join(dir, 'cgroup.procs')).filter(Boolean).map(Number);
}

/** A process and its descendants. */
function tree(pid: number): number[] {
  return [pid, ...childrenOf(pid).flatMap(tree)];
}

/**
 * The per-instance CPU limits of one run: `limit(pid, name)` puts a process (and its children) in
 * a group of its own capped at `cores`; `close()` moves whatever is left back and removes the groups.
 */
export class CpuLimits {
  readonly cores: number;
  /** `cgroup v1 (/sys/fs/cgroup/cpu/munim-bench-123)`, for the report. */
  readonly where: string;
  readonly #version: 'v1' | 'v2';
  readonly #home: string;
  readonly #parent: string;
  readonly #groups: string[] = [];
  /** The label (a service) of each group a process was put in. */
  readonly #labels = new Map<string, string>();
  readonly #onExit = () => this.close();

  private constructor(cores: number, hierarchy: Hierarchy, parent: string) {
    this.cores = cores;
    this.#version = hierarchy.version;
    this.#home = hierarchy.home;
    this.#parent = parent;
    this.where = `cgroup ${hierarchy.version} (${parent})`;
    process.once('exit', this.#onExit);
  }

  /**
   * Limits of `cores` each in the first hierarchy that takes them, or why none does (no CPU
   * controller, or no permission to make groups in it): a group is made and its limit written to
   * find out.
   */
  static open(cores: number): CpuLimits | { unavailable: string } {
    if (!(cores > 0)) return { unavailable: `no limit asked for (${cores} cores per instance)` };
    if (process.platform !== 'linux') return { unavailable: `not Linux (${process.platform})` };
    const found = candidates();
    if (found.length === 0)
      return { unavailable: 'no cgroup hierarchy with the cpu controller is mounted here' };
    const why: string[] = [];
    for (const hierarchy of found) {
      const parent = join(hierarchy.home, `munim-bench-${process.pid}`);
      try {
        if (hierarchy.version === 'v2') writeFileSync(join(hierarchy.home, 'cgroup.subtree_control'), '+cpu');
        mkdirSync(parent);
        const limits = new CpuLimits(cores, hierarchy, parent);
        try {
          if (hierarchy.version === 'v2') writeFileSync(join(parent, 'cgroup.subtree_control'), '+cpu');
          // A group with the limit, empty, proves the controller takes it.
          limits.#group('probe');
          return limits;
        } catch (error) {
          limits.close();
          throw error;
        }
      } catch (error) {
        if (existsSync(parent)) rmdirSync(parent);
        why.push(`cgroup ${hierarchy.version} at ${hierarchy.home}: ${message(error)}`);
      }
    }
    return { unavailable: why.join('; ') };
  }

  /** A new group under the run's parent, with the limit written. */
  #group(name: string): string {
    const dir = join(this.#parent, `${name.replace(/[^\w.-]+/g, '-')}-${this.#groups.length}`);
    mkdirSync(dir);
    this.#groups.push(dir);
    const quota = Math.max(1_000, Math.round(this.cores * PERIOD_US));
    if (this.#version === 'v2') writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    else {
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
    }
    return dir;
  }

  /** Puts a process, and any children it has started, in a group of its own under the limit. */
  limit(pid: number, name: string, label: string): void {
    const dir = this.#group(name);
    this.#labels.set(dir, label);
    for (const p of tree(pid)) writeFileSync(join(dir, 'cgroup.procs'), String(p));
  }

  /**
   * The kernel's throttling counters, summed by label, since the groups were made: periods the
   * groups ran in, periods in which they used their whole quota and had to wait, and how long.
   */
  throttling(): Map<string, Throttling> {
    const out = new Map<string, Throttling>();
    for (const [dir, label] of this.#labels) {
      const row = out.get(label) ?? { periods: 0, throttled: 0, waitedMs: 0 };
      let text = '';
      try {
        text = readFileSync(join(dir, 'cpu.stat'), 'utf8');
      } catch {
        continue;
      }
      for (const line of text.split('\n')) {
        const [key, value] = line.split(' ');
        const n = Number(value);
        if (key === 'nr_periods') row.periods += n;
        else if (key === 'nr_throttled') row.throttled += n;
        else if (key === 'throttled_usec') row.waitedMs += n / 1_000;
        else if (key === 'throttled_time') row.waitedMs += n / 1_000_000;
      }
      out.set(label, row);
    }
    return out;
  }

  /** Moves any process still in a group back to where it came from, and removes the groups. */
  close(): void {
    process.removeListener('exit', this.#onExit);
    for (const dir of [...this.#groups.reverse(), this.#parent]) {
      if (!existsSync(dir)) continue;
      for (const pid of members(dir))
        try {
          writeFileSync(join(this.#home, 'cgroup.procs'), String(pid));
        } catch {
          // Gone meanwhile.
        }
      try {
        rmdirSync(dir);
      } catch (error) {
        console.error(`could not remove ${dir}: ${message(error)}`);
      }
    }
    this.#groups.length = 0;
  }
}
