import { type ChildProcess, fork } from 'node:child_process';

/** A bench process of its own, started by {@link forkServer}. */
export interface Forked<R> {
  /** What the child sent once it was serving. */
  ready: R;
  child: ChildProcess;
  /** SIGTERM, resolved once it is gone. */
  stop(): Promise<void>;
}

/**
 * Runs `moduleUrl` (a module whose `import.meta.main` part serves) in a process of its own, so its
 * CPU is counted apart: sends it `input`, and resolves with the first message it sends back,
 * rejecting on `{ error }` or an exit before that.
 */
export function forkServer<R extends object>(
  moduleUrl: string,
  input: object,
  what: string,
): Promise<Forked<R>> {
  const child = fork(new URL(moduleUrl).pathname, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    child.once('message', (m: R | { error: string }) => {
      if ('error' in m) reject(new Error(`${what}: ${m.error}`));
      else resolve({ ready: m, child, stop });
    });
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}) before listening`)));
    child.send(input);
  });
}
