/** Percentile of a sample (nearest rank). */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Times `fn` `runs` times after `warmup` untimed runs; returns milliseconds per run. */
export async function sample(runs: number, fn: () => Promise<void>, warmup = 2): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    out.push(performance.now() - start);
  }
  return out;
}

export function report(rows: { name: string; ms: number[]; anchorMs?: number }[]): void {
  console.table(
    rows.map(({ name, ms, anchorMs }) => ({
      measure: name,
      runs: ms.length,
      'p50 ms': percentile(ms, 50).toFixed(3),
      'p95 ms': percentile(ms, 95).toFixed(3),
      'p50 / anchor': anchorMs ? `${(percentile(ms, 50) / anchorMs).toFixed(1)}×` : 'anchor',
    })),
  );
}
