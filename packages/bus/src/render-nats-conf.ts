/** Writes infra/nats/nats.conf from the permission table: `node packages/bus/src/render-nats-conf.ts`. */
import { writeFileSync } from 'node:fs';
import { composeNatsConf } from './nats-conf.ts';

const target = new URL('../../../infra/nats/nats.conf', import.meta.url);
writeFileSync(target, composeNatsConf());
console.log(`wrote ${target.pathname}`);
