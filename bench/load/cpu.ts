/**
 * CPU time of processes from /proc: utime + stime of /proc/<pid>/stat (the whole process, every
 * thread), in clock ticks, turned into milliseconds. Linux only.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

function clockTicksPerSecond(): number {
  try {
    const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(hz) && hz > 0 ? hz : 100;
  } catch {
    return 100;
  }
}

const HZ = clockTicksPerSecond();

export interface ProcStat {
  ppid: number;
  /** utime + stime, in clock ticks. */
  ticks: number;
  /** When the process started, in clock ticks after boot. */
  startTicks: number;
}

/** One process's /proc/<pid>/stat, or undefined when it is gone. */
export function procStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The name (field 2) is in parentheses and may hold spaces: fields 3… follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const at = (field: number) => Number(fields[field - 3]);
  return { ppid: at(4), ticks: at(14) + at(15), startTicks: at(22) };
}

const ticksToMs = (ticks: number) => (ticks * 1000) / HZ;

/** Clock ticks since boot, now. */
function uptimeTicks(): number {
  return Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * HZ;
}

/** CPU time of the whole machine (every core) that was not idle, in clock ticks: from /proc/stat. */
function machineBusyTicks(): number {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  // cpu user nice system idle iowait irq softirq steal (guest time is inside user time already).
  const f = line.split(/\s+/).slice(1, 9).map(Number);
  // Not idle (3) and not waiting for I/O (4).
  return f.reduce((sum, n, i) => (i === 3 || i === 4 ? sum : sum + n), 0);
}

/** The process title (argv joined by spaces; PostgreSQL backends put their database there). */
export function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

const pids = () =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);

/** The process listening on a local TCP port (from /proc/net/tcp{,6} and the processes' fds). */
export function pidListeningOn(port: number): number | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      // State 0A is LISTEN; column 10 is the socket's inode.
      if (!local || cols[3] !== '0A') continue;
      if (Number.parseInt(local.split(':')[1] ?? '', 16) === port && cols[9]) inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  for (const pid of pids()) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m?.[1] && inodes.has(m[1])) return pid;
      } catch {}
    }
  }
  return undefined;
}

/** The children of a process (by their parent pid). */
export function childrenOf(parent: number): number[] {
  return pids().filter((pid) => procStat(pid)?.ppid === parent);
}

/** Names a process for the report, or undefined to leave it out. */
export type Labeller = () => Map<number, string>;

export interface CpuTimes {
  byLabel: Map<string, { ms: number; processes: number }>;
  machineMs: number;
}

interface Tracked {
  label: string;
  base: number;
  last: number;
}

/**
 * CPU time per label between `start()` and `stop()`. The processes are found by `discover`
 * (called at start, on every poll and at stop, so a PostgreSQL backend born in the window is
 * counted from zero and one that ends in it keeps what it had used at the last poll).
 */
export class CpuMeter {
  readonly #discover: Labeller;
  readonly #pollMs: number;
  #tracked = new Map<number, Tracked>();
  #startTicks = 0;
  #machineStart = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(discover: Labeller, pollMs = 250) {
    this.#discover = discover;
    this.#pollMs = pollMs;
  }

  start(): void {
    this.#tracked.clear();
    this.#startTicks = uptimeTicks();
    this.#machineStart = machineBusyTicks();
    for (const [pid, label] of this.#discover()) {
      const stat = procStat(pid);
      if (stat) this.#tracked.set(pid, { label, base: stat.ticks, last: stat.ticks });
    }
    this.#timer = setInterval(() => this.#poll(), this.#pollMs);
  }

  #poll(): void {
    for (const [pid, label] of this.#discover()) {
      const stat = procStat(pid);
      if (!stat) continue;
      const seen = this.#tracked.get(pid);
      if (seen) seen.last = stat.ticks;
      // Born in the window: all its time is the window's; otherwise it was missed at start.
      else
        this.#tracked.set(pid, {
          label,
          base: stat.startTicks >= this.#startTicks ? 0 : stat.ticks,
          last: stat.ticks,
        });
    }
  }

  /**
   * Milliseconds of CPU per label and how many processes each label covered; and the CPU the whole
   * machine spent meanwhile (whatever else runs on it included).
   */
  stop(): CpuTimes {
    this.#poll();
    const machineMs = ticksToMs(machineBusyTicks() - this.#machineStart);
    clearInterval(this.#timer);
    const byLabel = new Map<string, { ms: number; processes: number }>();
    for (const t of this.#tracked.values()) {
      const row = byLabel.get(t.label) ?? { ms: 0, processes: 0 };
      row.ms += ticksToMs(t.last - t.base);
      row.processes += 1;
      byLabel.set(t.label, row);
    }
    return { byLabel, machineMs };
  }
}
