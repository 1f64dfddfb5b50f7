// A stdio MCP server gets only the variables its entry names plus a minimal safe
// set — never the executor's database URL, NATS credentials or model keys. Checked from inside a
// server nobody here wrote: server-everything's `get-env` reports the environment it was given.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransport, type McpServerSpec } from '../src/servers.ts';

const require = createRequire(import.meta.url);
const EVERYTHING = join(
  dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist',
  'index.js',
);

/** What the executor's own process holds: none of it may reach a stdio server it did not name. */
const EXECUTOR_SECRETS = {
  DATABASE_URL: 'postgres://munim:hunter2@db:5432/munim',
  NATS_URL: 'nats://executor:s3cret@nats:4222',
  NATS_PASSWORD: 'nats-password-value',
  NATS_CREDS_FILE: '/run/secrets/executor.creds',
  OPENAI_API_KEY: 'sk-executor-model-key',
  MCP_AUTH_TOKEN: 'bearer-of-another-server',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-value',
};

const saved = new Map<string, string | undefined>();
afterEach(() => {
  for (const [key, value] of saved) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  saved.clear();
});

/** The environment a stdio server started from `spec` sees. */
async function environmentOf(spec: McpServerSpec): Promise<Record<string, string>> {
  const client = new Client({ name: 'stdio-env-test', version: '1.0.0' });
  await client.connect(createTransport(spec));
  try {
    const result = await client.callTool({ name: 'get-env', arguments: {} });
    const text = (result.content as { type: string; text: string }[])[0]?.text ?? '{}';
    return JSON.parse(text) as Record<string, string>;
  } finally {
    await client.close();
  }
}

describe("a stdio server's environment", () => {
  it.each([
    ['with variables of its own', { MEMORY_FILE_PATH: '/tmp/memory.jsonl', ERP_REGION: 'ap-south-1' }],
    ['with none named', undefined],
  ])("%s holds those and a safe set, never the executor's secrets", async (_case, own) => {
    for (const [key, value] of Object.entries(EXECUTOR_SECRETS)) {
      saved.set(key, process.env[key]);
      process.env[key] = value;
    }
    const env = await environmentOf({
      name: 'everything',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      ...(own ? { env: own } : {}),
    });
    for (const key of Object.keys(EXECUTOR_SECRETS)) expect(env, key).not.toHaveProperty(key);
    const text = JSON.stringify(env);
    for (const secret of Object.values(EXECUTOR_SECRETS)) expect(text).not.toContain(secret);
    for (const [key, value] of Object.entries(own ?? {})) expect(env[key]).toBe(value);
    // Enough to run a program: where to find it and whose home it is.
    expect(env.PATH).toBe(process.env.PATH);
    const extra = Object.keys(env).filter(
      (key) =>
        !(own && key in own) &&
        ![
          'HOME',
          'LOGNAME',
          'PATH',
          'SHELL',
          'TERM',
          'USER',
          'LANG',
          'LC_ALL',
          'LC_CTYPE',
          'TZ',
          'TMPDIR',
        ].includes(key),
    );
    // Node adds nothing of the parent's; anything else came from the executor's environment.
    expect(extra.filter((key) => key in process.env)).toEqual([]);
  });
});
