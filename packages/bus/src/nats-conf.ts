import { ServiceNameSchema } from '@munim/contracts';
import { MIGRATE_USER, type NatsUserName, natsPermissions } from './nats-permissions.ts';

/** One NATS user (a service's, or the migration job's): a password, or the public key of an nkey. */
export type NatsConfUser = { service: NatsUserName } & (
  | {
      /** A literal, or `$VAR` for the server to read from its environment (letters and digits only). */
      password: string;
    }
  | { nkey: string }
);

/** A nats-server configuration to render: where it listens and stores, and its users. */
export interface NatsConfOptions {
  prefix: string;
  users: NatsConfUser[];
  port: number;
  /** Monitoring port (health checks); omitted when not given. */
  httpPort?: number;
  storeDir: string;
  /** Comment lines at the top. */
  header?: string[];
}

const q = (s: string) => JSON.stringify(s);

/** The `{ … }` entry of one user in an `authorization.users` list. */
function renderUser(user: NatsConfUser, prefix: string): string {
  const perms = natsPermissions(user.service, prefix);
  const list = (subjects: string[]) => subjects.map((s) => `            ${q(s)}`).join('\n');
  const identity =
    'nkey' in user
      ? [`nkey: ${user.nkey}`]
      : [
          `user: ${q(user.service)}`,
          `password: ${/^\$[A-Z_][A-Z0-9_]*$/.test(user.password) ? user.password : q(user.password)}`,
        ];
  return [
    '    {',
    ...identity.map((line) => `      ${line}`),
    '      permissions: {',
    '        publish: {',
    '          allow: [',
    list(perms.publish),
    '          ]',
    ...(perms.publishDeny.length > 0 ? ['          deny: [', list(perms.publishDeny), '          ]'] : []),
    '        }',
    '        subscribe: {',
    '          allow: [',
    list(perms.subscribe),
    '          ]',
    '        }',
    ...(perms.responses
      ? [
          `        allow_responses: { max: ${perms.responses.max}, expires: "${perms.responses.expiresMs / 1000}s" }`,
        ]
      : []),
    '      }',
    '    }',
  ].join('\n');
}

/** A nats-server configuration: JetStream, and one user per munim service (and the migration job's) with its least permissions. */
export function renderNatsConf(opts: NatsConfOptions): string {
  return [
    ...(opts.header ?? []).map((line) => `# ${line}`.trimEnd()),
    `port: ${opts.port}`,
    ...(opts.httpPort === undefined ? [] : [`http_port: ${opts.httpPort}`]),
    `jetstream { store_dir: ${q(opts.storeDir)} }`,
    'authorization {',
    '  users: [',
    opts.users.map((u) => renderUser(u, opts.prefix)).join('\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}

/** The environment variable holding a user's NATS password in docker-compose.yml. */
export const natsPasswordVar = (user: NatsUserName) =>
  `NATS_${user.toUpperCase().replace(/-/g, '_')}_PASSWORD`;

/** Every NATS user of munim: the six services, then the migration job, the only one that manages streams. */
export const NATS_USERS: NatsUserName[] = [...ServiceNameSchema.options, MIGRATE_USER];

/** `infra/nats/nats.conf` as docker-compose.yml ships it: prefix `munim`, passwords from the environment. */
export function composeNatsConf(): string {
  return renderNatsConf({
    prefix: 'munim',
    port: 4222,
    httpPort: 8222,
    storeDir: '/data',
    users: NATS_USERS.map((service) => ({ service, password: `$${natsPasswordVar(service)}` })),
    header: [
      'Generated from packages/bus/src/nats-permissions.ts by `node packages/bus/src/render-nats-conf.ts`;',
      'packages/bus/test/auth.test.ts fails when this file and the table differ. Do not edit by hand.',
      '',
      'One user per munim service, allowed only the subjects its job needs (NATS_PREFIX=munim), and the',
      'migrate user of the migration job, the only one that may create or update the streams; each',
      "password comes from the server's environment (docker-compose.yml, .env). The monitoring port",
      "answers the container's health check and is not published.",
    ],
  });
}
