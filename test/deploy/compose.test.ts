/**
 * docker-compose.yml, checked offline (there is no Docker engine here): against the Compose
 * Specification's JSON schema, and against the deployment's rules — no default secrets, only the
 * gateway and the WhatsApp webhook published, least privilege for NATS, MinIO and Grafana.
 *
 * compose-spec.schema.json is the Compose Specification's schema (compose-spec/compose-spec,
 * Apache-2.0) as the npm package dclint 3.1.0 ships it in schemas/compose.schema.json.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const root = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));
const read = (path: string) => readFileSync(root(path), 'utf8');

const SERVICES = ['gateway', 'router', 'agent', 'validator', 'mcp-executor', 'logger', 'messaging'] as const;
/** Every NATS user: the services, and the migration job, the only one that creates and updates streams. */
const NATS_USERS = [...SERVICES, 'migrate'] as const;
const SECRET = /PASSWORD|SECRET|(?<!QUOTA_)TOKEN|_KEY$|_KEYS$|ACCESS_KEY_ID|ROOT_USER/;
/** Secrets a deployment may leave out: `${VAR:-}`, empty meaning unset. */
const OPTIONAL_SECRETS = [
  'OPENAI_API_KEY',
  'MCP_AUTH_TOKEN',
  'GATEWAY_ADMIN_KEYS',
  // WhatsApp is off unless configured (docs/whatsapp.md).
  'WHATSAPP_APP_SECRET',
  'WHATSAPP_VERIFY_TOKEN',
  'WHATSAPP_ACCESS_TOKEN',
];
const REQUIRED_SECRETS = [
  'POSTGRES_PASSWORD',
  'GATEWAY_DB_PASSWORD',
  'AGENT_DB_PASSWORD',
  'ROUTER_DB_PASSWORD',
  'LOGGER_DB_PASSWORD',
  'MCP_EXECUTOR_DB_PASSWORD',
  'MESSAGING_DB_PASSWORD',
  'GRAFANA_DB_PASSWORD',
  'GRAFANA_ADMIN_PASSWORD',
  'MINIO_ROOT_USER',
  'MINIO_ROOT_PASSWORD',
  'ATTACHMENTS_S3_ACCESS_KEY_ID',
  'ATTACHMENTS_S3_SECRET_ACCESS_KEY',
  'LLM_CONFIG_KEY',
  'GATEWAY_API_KEYS',
  ...NATS_USERS.map((s) => `NATS_${s.toUpperCase().replace(/-/g, '_')}_PASSWORD`),
];

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  depends_on?: string[] | Record<string, unknown>;
  healthcheck?: { test: string[] };
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const TEXT = read('docker-compose.yml');
const compose = parse(TEXT, { merge: true }) as Compose;

/** Every `${VAR…}` of the file: its name, operator (`:?`, `:-`, …) and what follows it. */
const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
const references = [...TEXT.matchAll(REFERENCE)]
  .filter((m) => m[0] !== '$$')
  .map((m) => ({ text: m[0], name: (m[1] ?? m[4]) as string, op: m[2] ?? '', rest: m[3] ?? '' }));

/** `.env.example` as a map; values may be empty. */
const example = Object.fromEntries(
  read('.env.example')
    .split('\n')
    .filter((line) => /^[A-Z_][A-Z0-9_]*=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
);

/** The file as Compose would see it with .env.example filled in (secrets as placeholders). */
function interpolated(): Compose {
  const text = TEXT.replace(
    REFERENCE,
    (whole, braced?: string, op?: string, rest?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const value = example[(braced ?? bare) as string] || 'placeholder';
      return op?.includes('-') && !example[braced as string] ? (rest ?? '') || value : value;
    },
  );
  return parse(text, { merge: true }) as Compose;
}

const envOf = (service: string) => compose.services[service]?.environment ?? {};
const dependsOn = (s: Service) =>
  Array.isArray(s.depends_on) ? s.depends_on : Object.keys(s.depends_on ?? {});

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification schema', () => {
    const { $schema: _, ...schema } = JSON.parse(read('test/deploy/compose-spec.schema.json'));
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    const ok = validate(interpolated());
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(ok).toBe(true);
  });

  it('depends only on services it defines, and mounts only declared volumes and files that exist', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const target of dependsOn(service))
        expect(compose.services, `${name} → ${target}`).toHaveProperty([target]);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0] as string;
        if (source.startsWith('./')) expect(existsSync(root(source)), `${name}: ${source}`).toBe(true);
        else expect(compose.volumes ?? {}, `${name}: ${source}`).toHaveProperty([source]);
      }
    }
  });

  it('publishes the gateway and the WhatsApp webhook, and Grafana and Jaeger on loopback only — nothing else', () => {
    const published = Object.fromEntries(
      Object.entries(compose.services)
        .filter(([, s]) => s.ports?.length)
        .map(([name, s]) => [name, s.ports]),
    );
    expect(published).toEqual({
      gateway: ['8080-8089:8080'],
      messaging: ['8090-8099:8090'],
      grafana: ['127.0.0.1:3000:3000'],
      jaeger: ['127.0.0.1:16686:16686'],
    });
  });

  it('has no default for any secret: each is required (named when missing) or optional and empty', () => {
    const secrets = references.filter((r) => SECRET.test(r.name));
    for (const r of secrets) {
      if (OPTIONAL_SECRETS.includes(r.name)) expect(r.text).toBe(`\${${r.name}:-}`);
      else
        expect(r.text).toMatch(
          new RegExp(`^\\$\\{${r.name}:\\?${r.name} is required — see \\.env\\.example\\}$`),
        );
    }
    const required = new Set(references.filter((r) => r.op === ':?').map((r) => r.name));
    expect([...required].sort()).toEqual(expect.arrayContaining(REQUIRED_SECRETS.sort()));
    // No secret written into the file: every secret-named setting, and the database URL, interpolates.
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [key, value] of Object.entries(service.environment ?? {})) {
        if (SECRET.test(key)) expect(String(value), `${name}.${key}`).toMatch(/\$\{/);
      }
    }
  });

  it('logs each service in to PostgreSQL as its own role, and only the migrate step as the owner', () => {
    const urls = Object.fromEntries(
      Object.entries(compose.services)
        .filter(([, s]) => s.environment?.DATABASE_URL)
        .map(([name, s]) => [name, s.environment?.DATABASE_URL]),
    );
    const expected: Record<string, string> = {
      migrate: 'munim:${POSTGRES_PASSWORD',
      gateway: 'munim_gateway:${GATEWAY_DB_PASSWORD',
      agent: 'munim_agent:${AGENT_DB_PASSWORD',
      router: 'munim_router:${ROUTER_DB_PASSWORD',
      logger: 'munim_logger:${LOGGER_DB_PASSWORD',
      'mcp-executor': 'munim_executor:${MCP_EXECUTOR_DB_PASSWORD',
      messaging: 'munim_messaging:${MESSAGING_DB_PASSWORD',
    };
    expect(Object.keys(urls).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, login] of Object.entries(expected)) {
      const variable = login.slice(login.indexOf('{') + 1);
      expect(urls[name], name).toBe(
        `postgres://${login}:?${variable} is required — see .env.example}@postgres:5432/munim`,
      );
    }
    // The migrate step sets every service role's password; no service sees another's.
    for (const variable of ['GATEWAY', 'AGENT', 'ROUTER', 'LOGGER', 'MCP_EXECUTOR', 'MESSAGING'].map(
      (s) => `${s}_DB_PASSWORD`,
    )) {
      expect(envOf('migrate')[variable], variable).toBe(
        `\${${variable}:?${variable} is required — see .env.example}`,
      );
    }
  });

  it('gives each service and the migration job its own NATS user, whose password the nats server reads from its environment', () => {
    const nats = compose.services.nats as Service;
    expect(nats.command).toEqual(['-c', '/etc/nats/nats.conf']);
    expect(nats.volumes).toContain('./infra/nats/nats.conf:/etc/nats/nats.conf:ro');
    const conf = read('infra/nats/nats.conf');
    for (const service of NATS_USERS) {
      const variable = `NATS_${service.toUpperCase().replace(/-/g, '_')}_PASSWORD`;
      expect(envOf(service)).toMatchObject({
        NATS_USER: service,
        NATS_PASSWORD: expect.stringContaining(`\${${variable}:?`),
      });
      // Quoted: nats-server parses the value as configuration (a password like 1e7… would be a number).
      expect(nats.environment?.[variable]).toMatch(new RegExp(`^"\\$\\{${variable}:\\?[^}]+\\}"$`));
      expect(conf).toContain(`user: "${service}"\n      password: $${variable}\n`);
    }
    expect(Object.keys(nats.environment ?? {})).toHaveLength(NATS_USERS.length);
    // The streams exist before any service starts, made by the only user that may make them.
    expect(envOf('migrate')).toMatchObject({ NATS_URL: envOf('gateway').NATS_URL, NATS_PREFIX: 'munim' });
    expect(dependsOn(compose.services.migrate as Service)).toContain('nats');
    for (const service of SERVICES)
      expect(dependsOn(compose.services[service] as Service)).toContain('migrate');
  });

  it('hands each secret only to what uses it', () => {
    const holders = (variable: string) =>
      Object.entries(compose.services)
        .filter(([, s]) =>
          Object.values(s.environment ?? {}).some((v) => String(v).includes(`\${${variable}`)),
        )
        .map(([name]) => name)
        .sort();
    expect(holders('MINIO_ROOT_USER')).toEqual(['minio', 'minio-init']);
    expect(holders('MINIO_ROOT_PASSWORD')).toEqual(['minio', 'minio-init']);
    expect(holders('ATTACHMENTS_S3_SECRET_ACCESS_KEY')).toEqual([
      'agent',
      'gateway',
      'messaging',
      'minio-init',
    ]);
    expect(holders('LLM_CONFIG_KEY')).toEqual(['agent', 'gateway', 'migrate']);
    expect(holders('GATEWAY_API_KEYS')).toEqual(['gateway']);
    expect(holders('NATS_MIGRATE_PASSWORD')).toEqual(['migrate', 'nats']);
    expect(holders('POSTGRES_PASSWORD')).toEqual(['migrate', 'postgres']);
    for (const [service, variable] of [
      ['gateway', 'GATEWAY_DB_PASSWORD'],
      ['agent', 'AGENT_DB_PASSWORD'],
      ['router', 'ROUTER_DB_PASSWORD'],
      ['logger', 'LOGGER_DB_PASSWORD'],
      ['mcp-executor', 'MCP_EXECUTOR_DB_PASSWORD'],
      ['messaging', 'MESSAGING_DB_PASSWORD'],
    ] as const)
      expect(holders(variable), variable).toEqual([service, 'migrate'].sort());
    expect(holders('GRAFANA_DB_PASSWORD')).toEqual(['grafana', 'postgres']);
    expect(holders('MCP_AUTH_TOKEN')).toEqual(['mcp-executor']);
    expect(holders('OPENAI_API_KEY')).toEqual(['agent', 'gateway', 'messaging', 'validator']);
    for (const variable of ['WHATSAPP_APP_SECRET', 'WHATSAPP_VERIFY_TOKEN', 'WHATSAPP_ACCESS_TOKEN'])
      expect(holders(variable), variable).toEqual(['messaging']);
  });

  it('keeps the services on a MinIO user limited to the attachments bucket', () => {
    const init = compose.services['minio-init'] as Service & { entrypoint: string[] };
    const script = init.entrypoint.join('\n');
    expect(script).toMatch(/mc admin user add local "\$\$ATTACHMENTS_S3_ACCESS_KEY_ID"/);
    expect(script).toMatch(
      /mc admin policy attach local munim-attachments --user "\$\$ATTACHMENTS_S3_ACCESS_KEY_ID"/,
    );
    expect(init.volumes).toContain(
      './infra/minio/attachments-policy.json:/etc/munim/attachments-policy.json:ro',
    );
    const policy = JSON.parse(read('infra/minio/attachments-policy.json')) as {
      Statement: { Effect: string; Action: string[]; Resource: string[] }[];
    };
    for (const statement of policy.Statement) {
      expect(statement.Effect).toBe('Allow');
      for (const resource of statement.Resource)
        expect(resource).toMatch(/^arn:aws:s3:::munim-attachments(\/\*)?$/);
      for (const action of statement.Action) expect(action).not.toMatch(/\*|Policy|Admin|DeleteBucket/);
    }
    for (const s of ['gateway', 'agent', 'messaging'])
      expect(envOf(s).ATTACHMENTS_S3_ACCESS_KEY_ID).toMatch(/^\$\{ATTACHMENTS_S3_ACCESS_KEY_ID:\?/);
  });

  it("lets Grafana read PostgreSQL only as grafana_ro, created by the database's init script", () => {
    expect(compose.services.postgres?.volumes).toContain(
      './infra/postgres/grafana-ro.sh:/docker-entrypoint-initdb.d/10-grafana-ro.sh:ro',
    );
    const datasources = parse(read('infra/grafana/provisioning/datasources/datasources.yaml')) as {
      datasources: { type: string; user?: string; secureJsonData?: { password?: string } }[];
    };
    const postgres = datasources.datasources.filter((d) => d.type.includes('postgres'));
    expect(postgres).toHaveLength(1);
    expect(postgres[0]).toMatchObject({
      user: 'grafana_ro',
      secureJsonData: { password: `\${GRAFANA_DB_PASSWORD}` },
    });
  });

  it('keeps the health checks', () => {
    for (const name of ['nats', 'postgres', 'minio', 'gateway', 'messaging'])
      expect(compose.services[name]?.healthcheck?.test.length, name).toBeGreaterThan(1);
  });

  it('runs the WhatsApp channel off unless configured: every WHATSAPP_* setting may be left empty', () => {
    const messaging = envOf('messaging');
    const whatsApp = Object.keys(messaging).filter((k) => k.startsWith('WHATSAPP_'));
    expect(whatsApp).toEqual(
      expect.arrayContaining([
        'WHATSAPP_APP_SECRET',
        'WHATSAPP_VERIFY_TOKEN',
        'WHATSAPP_ACCESS_TOKEN',
        'WHATSAPP_PHONE_NUMBER_ID',
        'WHATSAPP_GRAPH_URL',
      ]),
    );
    for (const key of whatsApp) expect(messaging[key], key).toBe(`\${${key}:-}`);
    // Reached through the published port (a reverse proxy in front), so it listens on every interface,
    // on the port its healthcheck asks.
    expect(messaging).toMatchObject({
      SERVICE: 'messaging',
      MESSAGING_HOST: '0.0.0.0',
      MESSAGING_PORT: '8090',
    });
    expect(compose.services.messaging?.healthcheck?.test.join(' ')).toContain(
      `127.0.0.1:${messaging.MESSAGING_PORT}/readyz`,
    );
  });
});

describe('.env.example', () => {
  it('lists every variable docker-compose.yml reads, and no other', () => {
    expect(Object.keys(example).sort()).toEqual([...new Set(references.map((r) => r.name))].sort());
  });

  it('holds no secret', () => {
    for (const [name, value] of Object.entries(example)) if (SECRET.test(name)) expect(value, name).toBe('');
  });
});
