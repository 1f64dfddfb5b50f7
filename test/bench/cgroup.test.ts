/**
 * The scale benchmark's per-instance CPU limits: a process put under one lands in a group of its
 * own with the quota written, its throttling is read, and closing moves it back and removes the
 * groups. Where the machine gives no usable CPU controller (no permission, no cgroup), opening
 * says why instead.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { CpuLimits, throttledBetween } from '../../bench/load/cgroup.ts';

let child: ChildProcess | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
});

/** The group a process is in, by /proc/<pid>/cgroup (the v2 line, or v1's cpu line). */
const groupOf = (pid: number) =>
  readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('0::') || l.split(':')[1]?.split(',').includes('cpu'))
    ?.split(':')
    .slice(2)
    .join(':');

it('limits a process in a group of its own, and removes the groups on close', () => {
  const opened = CpuLimits.open(0.2);
  if (!(opened instanceof CpuLimits)) {
    // No usable controller here: the suite runs unlimited and says why.
    expect(opened.unavailable).toMatch(/\S/);
    return;
  }
  const parent = /\((.*)\)$/.exec(opened.where)?.[1] ?? '';
  expect(opened.where).toMatch(/^cgroup v[12] \(.*munim-bench-\d+\)$/);
  expect(existsSync(parent)).toBe(true);
  try {
    child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const pid = child.pid ?? 0;
    const before = opened.throttling();
    opened.limit(pid, 'gateway#1', 'gateway');
    expect(groupOf(pid)).toMatch(/munim-bench-\d+\/gateway-1-\d+$/);
    const dir = join(parent, groupOf(pid)?.split('/').pop() ?? '');
    const quota = existsSync(join(dir, 'cpu.max'))
      ? readFileSync(join(dir, 'cpu.max'), 'utf8').trim()
      : `${readFileSync(join(dir, 'cpu.cfs_quota_us'), 'utf8').trim()} ${readFileSync(join(dir, 'cpu.cfs_period_us'), 'utf8').trim()}`;
    expect(quota).toBe('20000 100000');
    const grown = throttledBetween(before, opened.throttling());
    expect(grown.gateway).toEqual({
      periods: expect.any(Number),
      throttled: expect.any(Number),
      waitedMs: expect.any(Number),
    });
  } finally {
    opened.close();
  }
  expect(existsSync(parent)).toBe(false);
  expect(groupOf(child?.pid ?? 0)).not.toMatch(/munim-bench/);
});

it('says no limit was asked for at 0 cores', () => {
  expect(CpuLimits.open(0)).toEqual({ unavailable: expect.stringMatching(/no limit/) });
});
