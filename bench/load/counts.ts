/**
 * SQL statements and NATS messages per answer, over the same window as the CPU figures: each
 * service process counts in `counts-preload.ts` (an increment per statement; NATS's own counters)
 * and writes its totals when signalled at the window's edges; the JetStream streams' sequence
 * numbers say how many messages they stored. Per answer is the window's difference ÷ its answers.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

const PRELOAD = fileURLToPath(new URL('./counts-preload.ts', import.meta.url));

interface ProcessCounts {
  sql: number;
  natsOut: number;
  natsIn: number;
}

export interface Snapshot {
  /** By process label (a service's instances summed). */
  processes: Map<string, ProcessCounts>;
  /** Last sequence of each of the system's streams, by name less the prefix. */
  streams: Map<string, number>;
}

/** Per answer over a window, by service and in total. */
export interface CountsPerAnswer {
  sql: Record<string, number>;
  natsOut: Record<string, number>;
  natsIn: Record<string, number>;
  /** Messages each stream stored. */
  streams: Record<string, number>;
}

/** Whether the process was started with the counting preload (a signal would end one without it). */
function counting(pid: number, dir: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`BENCH_COUNTS_DIR=${dir}`);
  } catch {
    return false;
  }
}

export class Counts {
  readonly dir = mkdtempSync(join(tmpdir(), 'munim-bench-counts-'));
  private readonly seqs = new Map<number, number>();

  /** The environment that loads the preload into a service (beside any other NODE_OPTIONS). */
  env(nodeOptions?: string): Record<string, string> {
    return {
      BENCH_COUNTS_DIR: this.dir,
      NODE_OPTIONS: [nodeOptions, `--import=${PRELOAD}`].filter(Boolean).join(' '),
    };
  }

  /** Every counting process's totals now, and the streams' sequences. */
  async snapshot(processes: Map<number, string>, natsUrl: string, prefix: string): Promise<Snapshot> {
    const [counted, streams] = await Promise.all([this.processes(processes), streamSeqs(natsUrl, prefix)]);
    return { processes: counted, streams };
  }

  private async processes(processes: Map<number, string>): Promise<Map<string, ProcessCounts>> {
    const asked = [...processes].filter(([pid]) => counting(pid, this.dir));
    for (const [pid] of asked) process.kill(pid, 'SIGUSR2');
    const out = new Map<string, ProcessCounts>();
    const deadline = performance.now() + 5_000;
    for (const [pid, label] of asked) {
      let counts: (ProcessCounts & { seq: number }) | undefined;
      while (!counts && performance.now() < deadline) {
        try {
          const read = JSON.parse(readFileSync(join(this.dir, `${pid}.json`), 'utf8'));
          if (read.seq > (this.seqs.get(pid) ?? 0)) counts = read;
        } catch {
          // not written yet, or being written
        }
        if (!counts) await new Promise((r) => setTimeout(r, 10));
      }
      if (!counts) throw new Error(`${label} (pid ${pid}) did not report its counts`);
      this.seqs.set(pid, counts.seq);
      const sum = out.get(label) ?? { sql: 0, natsOut: 0, natsIn: 0 };
      out.set(label, {
        sql: sum.sql + counts.sql,
        natsOut: sum.natsOut + counts.natsOut,
        natsIn: sum.natsIn + counts.natsIn,
      });
    }
    return out;
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function streamSeqs(natsUrl: string, prefix: string): Promise<Map<string, number>> {
  const nc = await connect({ servers: natsUrl.split(',').map((s) => s.trim()) });
  try {
    const jsm = await jetstreamManager(nc);
    const out = new Map<string, number>();
    const head = `${prefix.toUpperCase()}_`;
    for await (const info of jsm.streams.list())
      if (info.config.name.startsWith(head))
        out.set(info.config.name.slice(head.length), info.state.last_seq);
    return out;
  } finally {
    await nc.close();
  }
}

/** The window's counts per answer; `total` sums the services. */
export function perAnswer(open: Snapshot, close: Snapshot, answers: number): CountsPerAnswer {
  const per = (n: number) => (answers > 0 ? n / answers : Number.NaN);
  const out: CountsPerAnswer = { sql: {}, natsOut: {}, natsIn: {}, streams: {} };
  const totals = { sql: 0, natsOut: 0, natsIn: 0 };
  for (const [label, end] of close.processes) {
    const start = open.processes.get(label);
    if (!start) continue;
    for (const key of ['sql', 'natsOut', 'natsIn'] as const) {
      out[key][label] = per(end[key] - start[key]);
      totals[key] += end[key] - start[key];
    }
  }
  for (const key of ['sql', 'natsOut', 'natsIn'] as const) out[key].total = per(totals[key]);
  for (const [stream, seq] of close.streams) out.streams[stream] = per(seq - (open.streams.get(stream) ?? 0));
  return out;
}
