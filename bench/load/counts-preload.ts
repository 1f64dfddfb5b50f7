/**
 * Loaded into each service of a load run (`NODE_OPTIONS=--import`), base checkouts' included: counts
 * the SQL statements the process sends (every `pg` Client's `query`) and the NATS messages its
 * connections send and receive (the client's own `outMsgs`/`inMsgs`). On SIGUSR2 it writes them to
 * `$BENCH_COUNTS_DIR/<pid>.json`. Counting costs an increment per statement; nothing in the services changes.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

interface Protocol {
  outMsgs: number;
  inMsgs: number;
}

const dir = process.env.BENCH_COUNTS_DIR;
if (dir) {
  // Resolved as the services resolve them, from the checkout they run in.
  const fromDb = createRequire(join(process.cwd(), 'packages/db/package.json'));
  const fromBus = createRequire(join(process.cwd(), 'packages/bus/package.json'));
  const pg = fromDb('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const core = fromBus('@nats-io/nats-core/internal') as {
    ProtocolHandler: { connect: (...args: unknown[]) => Promise<Protocol> };
  };

  let statements = 0;
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    statements += 1;
    return query.apply(this, args);
  };

  const connections: Protocol[] = [];
  const connect = core.ProtocolHandler.connect;
  core.ProtocolHandler.connect = async (...args: unknown[]) => {
    const protocol = await connect.apply(core.ProtocolHandler, args);
    connections.push(protocol);
    return protocol;
  };

  let seq = 0;
  process.on('SIGUSR2', () => {
    seq += 1;
    const counts = {
      seq,
      sql: statements,
      natsOut: connections.reduce((n, c) => n + c.outMsgs, 0),
      natsIn: connections.reduce((n, c) => n + c.inMsgs, 0),
    };
    writeFileSync(join(dir, `${process.pid}.json`), JSON.stringify(counts));
  });
}
