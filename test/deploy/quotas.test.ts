// Compose and Kubernetes set example per-tenant quotas, the same for the gateway
// and the agent (they count in the same rows), valid by the services' own schema, refusing while the
// usage table is unreachable, and with a token quota that holds many of the largest model calls.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { QuotaEnvSchema } from '../../packages/kit/src/quotas.ts';

const read = (path: string) => readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');
const QUOTA_KEYS = Object.keys(QuotaEnvSchema.shape);
/** The agent's largest default max_tokens (LLM_MAX_TOKENS_CAPABLE): one call may reserve that much and its prompt. */
const LARGEST_CALL = 8192;

/** A compose value with `${NAME:-default}` read as its default, as compose does with NAME unset. */
const withDefaults = (value: unknown) => String(value).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

function expectExample(quotas: Record<string, string>, where: string) {
  expect(Object.keys(quotas).sort(), where).toEqual([...QUOTA_KEYS].sort());
  const parsed = QuotaEnvSchema.parse(quotas);
  expect(parsed.QUOTA_QUERIES_PER_WINDOW, where).toBeGreaterThan(0);
  expect(parsed.QUOTA_TOKENS_PER_WINDOW, where).toBeGreaterThanOrEqual(10 * LARGEST_CALL);
  expect(parsed.QUOTA_STORE_UNREACHABLE, where).toBe('refuse');
}

describe('example quotas', () => {
  it('are set alike for the gateway and the agent in compose', () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { environment: Record<string, unknown> }>;
    };
    const quotasOf = (service: string) =>
      Object.fromEntries(
        Object.entries(compose.services[service]?.environment ?? {})
          .filter(([k]) => k.startsWith('QUOTA_'))
          .map(([k, v]) => [k, withDefaults(v)]),
      );
    expectExample(quotasOf('gateway'), 'compose gateway');
    expect(quotasOf('agent')).toEqual(quotasOf('gateway'));
  });

  it('are one ConfigMap in Kubernetes that the gateway and the agent both read', () => {
    const docs = parseAllDocuments(read('infra/k8s/config.yaml')).map((d) => d.toJSON());
    const map = docs.find((d) => d?.kind === 'ConfigMap' && d.metadata?.name === 'munim-quotas');
    expectExample(map?.data ?? {}, 'munim-quotas');
    for (const service of ['gateway', 'agent']) {
      const deployment = parseAllDocuments(read(`infra/k8s/${service}.yaml`))
        .map((d) => d.toJSON())
        .find((d) => d?.kind === 'Deployment');
      const sources = deployment?.spec.template.spec.containers[0].envFrom ?? [];
      expect(
        sources.map((s: { configMapRef?: { name: string } }) => s.configMapRef?.name),
        service,
      ).toContain('munim-quotas');
    }
  });
});
