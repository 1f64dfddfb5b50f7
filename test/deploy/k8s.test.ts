/**
 * infra/k8s, checked offline (no cluster here): every manifest against the Kubernetes API schemas
 * that kubernetes-models 5.1.0 compiles from the Kubernetes OpenAPI document (ajv validators), with
 * unknown fields refused through the same package's types (kubectl's strict field validation); then
 * the deployment's own rules; and the NATS configuration run as a real three-server cluster on loopback.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ServiceName, ServiceNameSchema } from '@munim/contracts';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IEnvVar } from 'kubernetes-models/v1/EnvVar';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import type { IService } from 'kubernetes-models/v1/Service';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { inboxPrefix } from '../../packages/bus/src/nats-permissions.ts';
import {
  freePort,
  type NatsServer,
  natsPasswords,
  startNatsServer,
} from '../../packages/bus/test/nats-server.ts';
import { k8sNatsConf, NATS_K8S } from '../../scripts/render-k8s-nats-conf.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const K8S = 'infra/k8s';
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const SERVICES = ServiceNameSchema.options;
/** What the HPAs scale (the rest have fixed replicas). */
const AUTOSCALED = ['agent', 'router', 'mcp-executor'];
const SECRET = /PASSWORD|SECRET|(?<!QUOTA_)TOKEN|_KEY$|_KEYS$|ACCESS_KEY_ID|DATABASE_URL/;

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: each kind has its own spec; narrowed with kubernetes-models' types below.
  spec?: any;
  data?: Record<string, string>;
}
interface Located {
  file: string;
  doc: Manifest;
}

const kustomization = parse(read(`${K8S}/kustomization.yaml`)) as {
  namespace: string;
  resources: string[];
  configMapGenerator?: { name: string; files: string[] }[];
};
const manifests: Located[] = kustomization.resources.flatMap((file) =>
  parseAllDocuments(read(`${K8S}/${file}`)).map((d) => ({ file, doc: d.toJS() as Manifest })),
);
/** The ConfigMaps kustomize generates, as it would (the name's hash suffix aside). */
const generated: Located[] = (kustomization.configMapGenerator ?? []).map((g) => ({
  file: 'kustomization.yaml',
  doc: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: g.name },
    data: Object.fromEntries(
      g.files.map((f) => {
        const [key, path] = f.includes('=') ? (f.split('=') as [string, string]) : [f.split('/').at(-1), f];
        return [key as string, read(`${K8S}/${path}`)];
      }),
    ),
  },
}));
const all = [...manifests, ...generated];
/** The manifests of a kind, typed with kubernetes-models' interface when given. */
const ofKind = <T = Manifest>(kind: string) => all.filter((m) => m.doc.kind === kind).map((m) => m.doc as T);
const named = <T = Manifest>(kind: string, name: string) =>
  all.find((m) => m.doc.kind === kind && m.doc.metadata.name === name)?.doc as T | undefined;

/** Every workload's pod template, by workload. */
const workloads = [...ofKind('Deployment'), ...ofKind('StatefulSet')].map((w) => ({
  kind: w.kind,
  name: w.metadata.name,
  replicas: w.spec.replicas as number | undefined,
  template: w.spec.template as IPodTemplateSpec,
}));
const deployments = workloads.filter((w) => w.kind === 'Deployment');
const containers = (w: { template: IPodTemplateSpec }) => (w.template.spec?.containers ?? []) as IContainer[];
/** Init containers too: what a pod reads before its service starts (the migration's settings). */
const everyContainer = (w: { template: IPodTemplateSpec }) =>
  [...(w.template.spec?.initContainers ?? []), ...containers(w)] as IContainer[];
const matches = (selector: Record<string, string>, labels: Record<string, string> = {}) =>
  Object.entries(selector).every(([k, v]) => labels[k] === v);

/** The Secrets the README's Kubernetes section tells the operator to create, with their keys. */
function documentedSecrets(): Map<string, Set<string>> {
  const readme = read('README.md');
  const start = readme.indexOf('### Kubernetes');
  expect(start, 'README.md has a "Kubernetes" section').toBeGreaterThan(-1);
  const rest = readme.slice(start + 1);
  const section = rest.slice(0, rest.search(/\n##+ /) + 1 || undefined);
  // Commands continued with a trailing backslash are one command.
  const commands = section.replace(/\\\n/g, ' ').split('\n');
  const secrets = new Map<string, Set<string>>();
  for (const command of commands) {
    const name = /create secret generic ([a-z0-9-]+)/.exec(command)?.[1];
    if (!name) continue;
    const keys = [...command.matchAll(/--from-(?:literal|file)=([A-Za-z0-9._-]+)=/g)].map(
      (m) => m[1] as string,
    );
    secrets.set(name, new Set([...(secrets.get(name) ?? []), ...keys]));
  }
  return secrets;
}

describe('infra/k8s', () => {
  it('lists every manifest of the directory in kustomization.yaml, and only files that exist', () => {
    const files = readdirSync(join(ROOT, K8S), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
      .sort();
    expect([...kustomization.resources].sort()).toEqual(files);
    expect(kustomization.namespace).toBe('munim');
    expect(named('Namespace', 'munim')).toBeDefined();
    for (const { file, doc } of manifests) {
      expect(doc.metadata?.name, file).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
      // kustomize sets the namespace; one written here would fight it.
      expect(doc.metadata.namespace, `${file}: ${doc.metadata.name}`).toBeUndefined();
    }
  });

  it('is valid against the Kubernetes API schemas', async () => {
    const problems: string[] = [];
    for (const { file, doc } of all) {
      const module = (await import(
        /* @vite-ignore */ `kubernetes-models/${doc.apiVersion}/${doc.kind}`
      )) as Record<string, new (data: unknown) => { validate(): void }>;
      const Model = module[doc.kind];
      expect(Model, `${doc.apiVersion} ${doc.kind}`).toBeDefined();
      try {
        new (Model as NonNullable<typeof Model>)(doc).validate();
      } catch (error) {
        problems.push(`${file} ${doc.kind}/${doc.metadata.name}: ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
  });

  // A TypeScript program over kubernetes-models' types: a few seconds, more on a busy machine.
  it('names no field the API does not know (as kubectl does with strict field validation)', () => {
    expect(unknownFields(all)).toEqual([]);
  }, 60_000);

  it('catches a broken manifest: a wrong type, and a misspelt field', async () => {
    const deployment = structuredClone(named('Deployment', 'agent') as Manifest);
    deployment.spec.replicas = 'two';
    const { Deployment } = await import('kubernetes-models/apps/v1/Deployment');
    expect(() => new Deployment(deployment as never).validate()).toThrow(/replicas must be integer/);
    const misspelt = structuredClone(named('Deployment', 'agent') as Manifest);
    misspelt.spec.template.spec.containers[0].readinesProbe = {};
    expect(unknownFields([{ file: 'mutated', doc: misspelt }]).join('\n')).toMatch(/readinesProbe/);
  }, 60_000);

  it('runs one Deployment per service, from the image, SERVICE picking the process', () => {
    expect(deployments.map((d) => d.name).sort()).toEqual([...SERVICES].sort());
    for (const d of deployments) {
      const [container, ...others] = containers(d);
      expect(others, d.name).toEqual([]);
      expect(container?.image, d.name).toMatch(/^munim(:|$)/);
      expect(container?.env?.find((e) => e.name === 'SERVICE')?.value, d.name).toBe(d.name);
    }
    const images = (kustomization as { images?: { name: string }[] }).images ?? [];
    expect(images.map((i) => i.name)).toContain('munim');
  });

  it('gives every workload startup, liveness and readiness probes on a port it declares (NATS: its loopback)', () => {
    const config = named<IConfigMap>('ConfigMap', 'munim-config')?.data ?? {};
    for (const w of workloads)
      for (const c of containers(w)) {
        const where = `${w.name}/${c.name}`;
        const ports = new Map((c.ports ?? []).map((p) => [p.name, p.containerPort]));
        for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
          if (w.kind === 'StatefulSet') {
            // Its monitoring port listens on the pod's loopback only: the probe runs in the container.
            const command = (c[probe] as IProbe | undefined)?.exec?.command ?? [];
            expect(command.slice(0, -1), `${where} ${probe}`).toEqual(['wget', '-q', '-O', '/dev/null']);
            expect(command.at(-1), `${where} ${probe}`).toMatch(
              new RegExp(`^http://127\\.0\\.0\\.1:${NATS_K8S.monitorPort}/healthz`),
            );
            continue;
          }
          const get = (c[probe] as IProbe | undefined)?.httpGet;
          expect(get, `${where} ${probe}`).toBeDefined();
          expect(ports.has(String(get?.port)), `${where} ${probe} port ${get?.port}`).toBe(true);
        }
        const paths = {
          liveness: c.livenessProbe?.httpGet?.path,
          readiness: c.readinessProbe?.httpGet?.path,
        };
        if (w.kind === 'StatefulSet') continue;
        // The gateway and messaging answer their probes beside their HTTP, on their own port.
        const own = { gateway: 'PORT', messaging: 'MESSAGING_PORT' }[w.name];
        if (own) {
          expect(paths, where).toEqual({ liveness: '/healthz', readiness: '/readyz' });
          expect(String(ports.get(String(c.readinessProbe?.httpGet?.port))), where).toBe(
            c.env?.find((e) => e.name === own)?.value,
          );
        } else {
          expect(paths, where).toEqual({ liveness: '/livez', readiness: '/readyz' });
          // The port the service opens is the one the kubelet probes.
          expect(String(ports.get('health')), where).toBe(config.HEALTH_PORT);
        }
      }
    expect(read('Dockerfile')).toMatch(new RegExp(`HEALTH_PORT=${config.HEALTH_PORT}\\b`));
  });

  it('gives every container CPU and memory requests and limits', () => {
    for (const w of workloads)
      for (const c of containers(w)) {
        expect(Object.keys(c.resources?.requests ?? {}).sort(), `${w.name} requests`).toEqual([
          'cpu',
          'memory',
        ]);
        expect(Object.keys(c.resources?.limits ?? {}).sort(), `${w.name} limits`).toEqual(['cpu', 'memory']);
      }
  });

  it('runs every pod as non-root, read-only, unprivileged, without an API token (Pod Security restricted)', () => {
    const namespace = named('Namespace', 'munim');
    expect(namespace?.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
    for (const w of workloads) {
      const pod = w.template.spec;
      expect(pod?.securityContext?.runAsNonRoot, w.name).toBe(true);
      expect(pod?.securityContext?.runAsUser, w.name).toBeGreaterThan(0);
      expect(pod?.securityContext?.seccompProfile?.type, w.name).toBe('RuntimeDefault');
      expect(pod?.automountServiceAccountToken, w.name).toBe(false);
      for (const c of containers(w)) {
        expect(c.securityContext, `${w.name}/${c.name}`).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.securityContext?.privileged, w.name).not.toBe(true);
        expect(c.securityContext?.runAsUser ?? 1, w.name).toBeGreaterThan(0);
      }
      for (const v of pod?.volumes ?? [])
        expect(
          Object.keys(v).filter((k) => k !== 'name'),
          `${w.name} volume ${v.name}`,
        ).toEqual([expect.stringMatching(/^(emptyDir|configMap|secret|persistentVolumeClaim|projected)$/)]);
    }
  });

  it('takes secrets only from Secrets the README says to create, and settings only from ConfigMaps it ships', () => {
    const documented = documentedSecrets();
    const referenced = new Map<string, Set<string>>();
    for (const w of workloads)
      for (const c of everyContainer(w)) {
        for (const e of c.env ?? []) {
          const secret = e.valueFrom?.secretKeyRef;
          if (secret) {
            expect(documented.get(secret.name as string), `${w.name}: Secret ${secret.name}`).toBeDefined();
            expect([...(documented.get(secret.name as string) ?? [])], `${w.name}: ${secret.name}`).toContain(
              secret.key,
            );
            referenced.set(
              secret.name as string,
              (referenced.get(secret.name as string) ?? new Set()).add(secret.key),
            );
          }
          const config = e.valueFrom?.configMapKeyRef;
          if (config)
            expect(
              Object.keys(named<IConfigMap>('ConfigMap', config.name as string)?.data ?? {}),
              `${w.name}: ConfigMap ${config.name}`,
            ).toContain(config.key);
        }
        for (const source of c.envFrom ?? []) {
          expect(source.secretRef, `${w.name}: envFrom a Secret hides which keys it needs`).toBeUndefined();
          expect(
            named('ConfigMap', source.configMapRef?.name as string),
            `${w.name}: ${source.configMapRef?.name}`,
          ).toBeDefined();
        }
      }
    for (const w of workloads)
      for (const v of w.template.spec?.volumes ?? [])
        if (v.configMap)
          expect(
            named('ConfigMap', v.configMap.name as string),
            `${w.name}: ${v.configMap.name}`,
          ).toBeDefined();
    // And the README documents no Secret or key that nothing reads.
    expect(Object.fromEntries([...documented].map(([k, v]) => [k, [...v].sort()]))).toEqual(
      Object.fromEntries([...referenced].map(([k, v]) => [k, [...v].sort()])),
    );
  });

  it('writes no secret value: every secret-like variable comes from a Secret', () => {
    const config = ofKind<IConfigMap>('ConfigMap').flatMap((c) => Object.keys(c.data ?? {}));
    for (const key of config) expect(key, 'a ConfigMap holds no secret').not.toMatch(SECRET);
    for (const w of workloads)
      for (const c of everyContainer(w))
        for (const e of (c.env ?? []) as IEnvVar[]) {
          if (!SECRET.test(e.name)) continue;
          if (w.kind === 'StatefulSet' && /^"\$\([A-Z_]+\)"$/.test(e.value ?? '')) continue; // quoted from a Secret, below
          if (e.name === 'DATABASE_URL' && e.value !== undefined) {
            // Put together from this container's own password, read from a Secret, and no literal one.
            const password = /^postgres:\/\/munim_[a-z]+:\$\(([A-Z_]+)\)@\$\(DATABASE_ADDRESS\)$/.exec(
              e.value,
            )?.[1];
            expect(password, `${w.name}: ${e.name}`).toBeDefined();
            const from = ((c.env ?? []) as IEnvVar[]).find((v) => v.name === password);
            expect(from?.valueFrom?.secretKeyRef, `${w.name}: ${password}`).toBeDefined();
            continue;
          }
          expect(e.value, `${w.name}: ${e.name}`).toBeUndefined();
          expect(e.valueFrom?.secretKeyRef, `${w.name}: ${e.name}`).toBeDefined();
        }
    expect(ofKind('Secret'), 'Secrets are created by the operator, not shipped').toEqual([]);
  });

  it('logs each service in to PostgreSQL as its own role; only the migration sees the owner and sets the roles’ passwords', () => {
    const ROLES: Record<string, string> = {
      gateway: 'munim_gateway',
      agent: 'munim_agent',
      router: 'munim_router',
      logger: 'munim_logger',
      'mcp-executor': 'munim_executor',
      messaging: 'munim_messaging',
    };
    const withDb = deployments.filter((d) => containers(d)[0]?.env?.some((e) => e.name === 'DATABASE_URL'));
    expect(withDb.map((d) => d.name).sort()).toEqual(Object.keys(ROLES).sort());
    for (const d of withDb) {
      const env = containers(d)[0]?.env ?? [];
      expect(env.find((e) => e.name === 'DATABASE_URL')?.value, d.name).toBe(
        `postgres://${ROLES[d.name]}:$(DB_PASSWORD)@$(DATABASE_ADDRESS)`,
      );
      expect(env.find((e) => e.name === 'DB_PASSWORD')?.valueFrom?.secretKeyRef, d.name).toEqual({
        name: 'munim-database',
        key: d.name,
      });
      // The owner's URL and other roles' passwords stay with the migration.
      const keys = env.flatMap((e) =>
        e.valueFrom?.secretKeyRef?.name === 'munim-database' ? [e.valueFrom.secretKeyRef.key] : [],
      );
      expect(keys, d.name).toEqual([d.name]);
      for (const init of (d.template.spec?.initContainers ?? []) as IContainer[]) {
        const initEnv = init.env ?? [];
        expect(initEnv.find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
          name: 'munim-database',
          key: 'url',
        });
        for (const service of Object.keys(ROLES)) {
          const variable = `${service.toUpperCase().replace(/-/g, '_')}_DB_PASSWORD`;
          expect(initEnv.find((e) => e.name === variable)?.valueFrom?.secretKeyRef, variable).toEqual({
            name: 'munim-database',
            key: service,
          });
        }
      }
    }
    const address = ofKind<IConfigMap>('ConfigMap').find((c) => c.metadata?.name === 'munim-config')?.data
      ?.DATABASE_ADDRESS;
    expect(address).toMatch(/^[^:/@]+:\d+\/munim(\?.*)?$/);
  });

  it('logs each service in to NATS as its own user, with streams replicated on all three servers', () => {
    for (const d of deployments) {
      const env = containers(d)[0]?.env ?? [];
      expect(env.find((e) => e.name === 'NATS_USER')?.value, d.name).toBe(d.name);
      expect(env.find((e) => e.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef, d.name).toMatchObject({
        name: 'munim-nats',
        key: d.name,
      });
      expect(
        containers(d)[0]?.envFrom?.map((s) => s.configMapRef?.name),
        `${d.name} reads the shared settings`,
      ).toContain('munim-config');
    }
    // The streams are made before the services start, by the only NATS user that may make them,
    // with the services' settings (NATS_STREAM_REPLICAS…).
    const migrates = workloads.flatMap((w) =>
      ((w.template.spec?.initContainers ?? []) as IContainer[]).filter((c) => c.name === 'migrate'),
    );
    expect(migrates.length).toBeGreaterThan(0);
    for (const m of migrates) {
      expect(m.env?.find((e) => e.name === 'NATS_USER')?.value).toBe('migrate');
      expect(m.env?.find((e) => e.name === 'NATS_PASSWORD')?.valueFrom?.secretKeyRef).toMatchObject({
        name: 'munim-nats',
        key: 'migrate',
      });
      expect(m.envFrom?.map((s) => s.configMapRef?.name)).toContain('munim-config');
    }
    const config = named<IConfigMap>('ConfigMap', 'munim-config')?.data ?? {};
    expect(config.NATS_STREAM_REPLICAS).toBe('3');
    expect(config.NATS_URL).toBe(
      `nats://${named<IService>('Service', 'nats')?.metadata?.name}:${NATS_K8S.clientPort}`,
    );
    expect(Number(config.NATS_STREAM_REPLICAS)).toBeLessThanOrEqual(
      named<IStatefulSet>('StatefulSet', NATS_K8S.statefulSet)?.spec?.replicas ?? 0,
    );
  });

  it('runs the WhatsApp channel off unless configured: its secrets optional, its number in a ConfigMap', () => {
    const messaging = deployments.find((d) => d.name === 'messaging');
    const [container] = containers(messaging as (typeof deployments)[number]);
    const env = new Map((container?.env ?? []).map((e) => [e.name, e]));
    // Reached through its Service (and the operator's Ingress), on the port it declares.
    expect(env.get('MESSAGING_HOST')?.value).toBe('0.0.0.0');
    expect(container?.ports?.map((p) => String(p.containerPort))).toEqual([env.get('MESSAGING_PORT')?.value]);
    for (const [name, key] of [
      ['WHATSAPP_APP_SECRET', 'app-secret'],
      ['WHATSAPP_VERIFY_TOKEN', 'verify-token'],
      ['WHATSAPP_ACCESS_TOKEN', 'access-token'],
    ])
      expect(env.get(name as string)?.valueFrom?.secretKeyRef, name).toEqual({
        name: 'munim-whatsapp',
        key,
        optional: true,
      });
    const whatsApp = named<IConfigMap>('ConfigMap', 'munim-whatsapp');
    expect(container?.envFrom?.map((s) => s.configMapRef?.name)).toContain(whatsApp?.metadata?.name);
    expect(whatsApp?.data).toMatchObject({ WHATSAPP_PHONE_NUMBER_ID: '', WHATSAPP_GRAPH_URL: '' });
    // Voice notes and documents as the gateway handles them: the model's endpoint and the bucket.
    expect(container?.envFrom?.map((s) => s.configMapRef?.name)).toEqual(
      expect.arrayContaining(['munim-llm', 'munim-attachments']),
    );
  });

  it('autoscales the agent, the router and the executor with autoscaling/v2 HPAs whose targets exist', () => {
    const hpas = ofKind<IHorizontalPodAutoscaler>('HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec?.scaleTargetRef.name).sort()).toEqual([...AUTOSCALED].sort());
    for (const hpa of hpas) {
      expect(hpa.apiVersion).toBe('autoscaling/v2');
      const target = hpa.spec?.scaleTargetRef;
      const deployment = deployments.find((d) => d.name === target?.name);
      expect(target?.kind).toBe('Deployment');
      expect(target?.apiVersion).toBe('apps/v1');
      expect(deployment, target?.name).toBeDefined();
      // An HPA and a fixed replica count would fight at every apply.
      expect(deployment?.replicas, `${target?.name} leaves replicas to its HPA`).toBeUndefined();
      expect(hpa.spec?.minReplicas ?? 1).toBeGreaterThanOrEqual(2);
      expect(hpa.spec?.maxReplicas).toBeGreaterThan(hpa.spec?.minReplicas ?? 1);
      expect(hpa.spec?.metrics?.length).toBeGreaterThan(0);
      for (const c of containers(deployment as (typeof deployments)[number]))
        expect(c.resources?.requests?.cpu, 'utilization is measured against the CPU request').toBeDefined();
    }
    for (const d of deployments.filter((d) => !AUTOSCALED.includes(d.name)))
      expect(d.replicas, d.name).toBeGreaterThanOrEqual(2);
  });

  it('keeps every workload available with a PodDisruptionBudget that selects its pods', () => {
    const pdbs = ofKind('PodDisruptionBudget');
    for (const w of workloads) {
      const covering = pdbs.filter((p) => matches(p.spec.selector.matchLabels, w.template.metadata?.labels));
      expect(covering, w.name).toHaveLength(1);
    }
    for (const p of pdbs)
      expect(
        workloads.some((w) => matches(p.spec.selector.matchLabels, w.template.metadata?.labels)),
        p.metadata.name,
      ).toBe(true);
  });

  it('selects existing pods from every Service, NetworkPolicy and workload selector, on ports they declare', () => {
    for (const w of [...ofKind('Deployment'), ...ofKind('StatefulSet')])
      expect(matches(w.spec.selector.matchLabels, w.spec.template.metadata.labels), w.metadata.name).toBe(
        true,
      );
    for (const service of ofKind<IService>('Service')) {
      const selector = service.spec?.selector ?? {};
      const pods = workloads.filter((w) => matches(selector, w.template.metadata?.labels));
      expect(pods.length, service.metadata?.name).toBeGreaterThan(0);
      const ports = new Set(
        pods.flatMap((w) => containers(w).flatMap((c) => (c.ports ?? []).map((p) => p.name))),
      );
      for (const port of service.spec?.ports ?? [])
        expect(ports, service.metadata?.name).toContain(port.targetPort);
    }
    expect(named<IService>('Service', 'gateway')).toBeDefined();
    expect(named<IService>('Service', 'messaging')?.spec?.ports?.[0]?.port).toBe(8090);
    for (const policy of ofKind('NetworkPolicy')) {
      const pods = workloads.filter((w) =>
        matches(policy.spec.podSelector.matchLabels, w.template.metadata?.labels),
      );
      expect(pods.length, policy.metadata.name).toBeGreaterThan(0);
      const ports = new Set(
        pods.flatMap((w) => containers(w).flatMap((c) => (c.ports ?? []).map((p) => p.name))),
      );
      for (const rule of policy.spec.ingress as { ports: { port: string }[] }[])
        for (const p of rule.ports) expect(ports, policy.metadata.name).toContain(p.port);
    }
  });

  it('runs NATS as a three-node JetStream cluster: a StatefulSet, its headless Service, a route to every pod', () => {
    const nats = named<IStatefulSet>('StatefulSet', NATS_K8S.statefulSet);
    expect(nats?.spec?.replicas).toBe(NATS_K8S.replicas);
    const headless = named<IService>('Service', nats?.spec?.serviceName as string);
    expect(headless?.metadata?.name).toBe(NATS_K8S.headlessService);
    expect(headless?.spec?.clusterIP).toBe('None');
    expect(headless?.spec?.publishNotReadyAddresses).toBe(true);

    const [container] = nats?.spec?.template.spec?.containers ?? [];
    const conf = named<IConfigMap>('ConfigMap', 'nats-config')?.data?.['nats.conf'] ?? '';
    const configVolume = nats?.spec?.template.spec?.volumes?.find((v) => v.configMap?.name === 'nats-config');
    const configMount = container?.volumeMounts?.find((m) => m.name === configVolume?.name);
    expect(container?.args).toEqual(['-c', `${configMount?.mountPath}/nats.conf`]);

    // JetStream on the volume each pod claims.
    const storeDir = /store_dir: "([^"]+)"/.exec(conf)?.[1];
    const claims = nats?.spec?.volumeClaimTemplates?.map((t) => t.metadata?.name) ?? [];
    const dataMount = container?.volumeMounts?.find((m) => claims.includes(m.name));
    expect(dataMount?.mountPath).toBe(storeDir);
    // Every server names itself after its pod and routes to all three.
    expect(conf).toMatch(/^server_name: \$POD_NAME$/m);
    expect(container?.env?.find((e) => e.name === 'POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe(
      'metadata.name',
    );
    // Each route a URL with the route user's credentials, built by the StatefulSet from the Secret.
    expect(conf).toMatch(/^ {2}authorization \{ user: "route", password: \$NATS_ROUTE_PASSWORD \}$/m);
    const routeVars = [...conf.matchAll(/^ {4}\$(NATS_ROUTE_\d+)$/gm)].map((m) => m[1] as string);
    const secret = natsSecret();
    const env = natsContainerEnv(secret, 0);
    expect(routeVars.map((name) => env[name])).toEqual(
      Array.from(
        { length: NATS_K8S.replicas },
        (_, i) =>
          `"nats://route:${secret.route}@${NATS_K8S.statefulSet}-${i}.${NATS_K8S.headlessService}:${NATS_K8S.clusterPort}"`,
      ),
    );
    expect(env.NATS_ROUTE_PASSWORD).toBe(`"${secret.route}"`);
    // The monitoring port: on the loopback, declared nowhere, so no Service or other pod reaches it.
    expect(conf).toMatch(new RegExp(`^http: "127\\.0\\.0\\.1:${NATS_K8S.monitorPort}"$`, 'm'));
    expect(conf).not.toMatch(/^http_port:/m);
    const ports = Object.fromEntries((container?.ports ?? []).map((p) => [p.name, p.containerPort]));
    expect(ports).toEqual({ client: NATS_K8S.clientPort, cluster: NATS_K8S.clusterPort });
    for (const service of ofKind<IService>('Service'))
      for (const port of service.spec?.ports ?? [])
        expect(port.port, service.metadata?.name).not.toBe(NATS_K8S.monitorPort);
    for (const policy of ofKind('NetworkPolicy'))
      for (const rule of policy.spec.ingress as { ports: { port: string | number }[] }[])
        for (const p of rule.ports) expect([NATS_K8S.monitorPort, 'monitor']).not.toContain(p.port);
    expect(container?.livenessProbe?.exec?.command?.at(-1)).toMatch(/\/healthz\?js-enabled-only=true$/);
  });

  it('ships the nats.conf rendered from the permission table, with a password variable for every user', () => {
    // Regenerate with `node scripts/render-k8s-nats-conf.ts`.
    const conf = read(`${K8S}/nats/nats.conf`);
    expect(conf).toBe(k8sNatsConf());
    const env = natsContainerEnv(natsSecret(), 0);
    const users = Object.fromEntries(
      [...conf.matchAll(/user: "([^"]+)"\n\s+password: \$([A-Z_]+)/g)].map((m) => [m[1], m[2]]),
    );
    expect(Object.keys(users).sort()).toEqual([...SERVICES, 'migrate'].sort());
    for (const service of [...SERVICES, 'migrate']) {
      expect(env[users[service] as string], `${users[service]} is set on the NATS pods`).toMatch(/^".+"$/);
    }
  });
});

describe('infra/k8s/nats/nats.conf on three nats-servers (loopback)', () => {
  const servers: NatsServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
  });

  it('forms a JetStream cluster that keeps a stream on all three, created by the migrate user and written by a service', async () => {
    const secret = natsSecret();
    const conf = read(`${K8S}/nats/nats.conf`);
    const clusterPorts = await Promise.all(Array.from({ length: NATS_K8S.replicas }, () => freePort()));
    const monitorPorts = await Promise.all(Array.from({ length: NATS_K8S.replicas }, () => freePort()));
    // The shipped file with this machine's ports and store in place of the pods' (everything else verbatim).
    const local = (i: number) => (ctx: { port: number; storeDir: string }) => {
      const text = conf
        .replace(/^port: \d+$/m, `port: ${ctx.port}`)
        .replace(/^http: "127\.0\.0\.1:\d+"$/m, `http: "127.0.0.1:${monitorPorts[i]}"`)
        .replace(/store_dir: "[^"]+"/, `store_dir: ${JSON.stringify(ctx.storeDir)}`)
        .replace(/^( {2}port: )\d+$/m, `$1${clusterPorts[i]}`);
      return text;
    };
    // The pods' environment with this machine's cluster ports in the route URLs.
    const localEnv = (i: number) => {
      const env = natsContainerEnv(secret, i);
      for (const [name, value] of Object.entries(env))
        env[name] = clusterPorts.reduce(
          (v, p, j) =>
            v.replace(
              `${NATS_K8S.statefulSet}-${j}.${NATS_K8S.headlessService}:${NATS_K8S.clusterPort}`,
              `127.0.0.1:${p}`,
            ),
          value,
        );
      return env;
    };
    servers.push(
      ...(await Promise.all(
        Array.from({ length: NATS_K8S.replicas }, (_, i) => startNatsServer(local(i), localEnv(i))),
      )),
    );

    // Each user may read replies only in its own inbox.
    const as = (user: 'gateway' | 'migrate') =>
      connect({
        servers: servers.map((s) => s.url),
        user,
        pass: secret[user],
        inboxPrefix: inboxPrefix('munim', user),
      });
    const nc = await as('gateway');
    const migrate = await as('migrate');
    try {
      // Only the migration job's user makes streams.
      await expect(
        (await jetstreamManager(nc, { checkAPI: false })).streams.add({
          name: 'MUNIM_WORK',
          subjects: ['munim.work.>'],
        }),
      ).rejects.toThrow('Permissions Violation for Publish to "$JS.API.STREAM.CREATE.MUNIM_WORK"');
      const jsm = await jetstreamManager(migrate, { checkAPI: false });
      // The meta leader is elected once the routes are up; until then JetStream refuses requests.
      let info: Awaited<ReturnType<typeof jsm.streams.add>> | undefined;
      await expect
        .poll(
          async () => {
            info = await jsm.streams
              .add({ name: 'MUNIM_WORK', subjects: ['munim.work.>'], num_replicas: NATS_K8S.replicas })
              .catch(() => undefined);
            return info?.cluster?.replicas?.length;
          },
          { timeout: 30_000, interval: 500 },
        )
        .toBe(NATS_K8S.replicas - 1);
      expect(info?.cluster?.name).toBe('munim');
      expect([info?.cluster?.leader, ...(info?.cluster?.replicas ?? []).map((r) => r.name)].sort()).toEqual(
        Array.from({ length: NATS_K8S.replicas }, (_, i) => `${NATS_K8S.statefulSet}-${i}`),
      );
      // A service writes it as services do: a JetStream publish, acknowledged once stored (a core
      // publish right after the stream is made may reach a server that does not yet route the
      // subject to it). One message id: however often it is retried, it is stored once.
      const js = jetstream(nc, { checkAPI: false });
      await expect
        .poll(
          async () =>
            js
              .publish('munim.work.query.submitted', 'hello', { msgID: 'k8s-hello' })
              .then((ack) => ack.stream)
              .catch(() => undefined),
          { timeout: 30_000, interval: 500 },
        )
        .toBe('MUNIM_WORK');
      await expect.poll(async () => (await jsm.streams.info('MUNIM_WORK')).state.messages).toBe(1);
    } finally {
      await nc.close();
      await migrate.close();
    }
    // Nothing refused but the gateway's stream create above. (A route refused from elsewhere — another
    // test's nats-server that drew one of these ports as a free one — is no refusal of ours: the
    // cluster itself formed, as the stream on all three shows, and rogue routes are tested below.)
    for (const s of servers)
      expect(
        s
          .output()
          .replace(/.*STREAM\.CREATE\.MUNIM_WORK.*\n/g, '')
          .replace(/.*Route Error 'Authorization Violation'.*\n/g, ''),
      ).not.toMatch(/Violation/);

    // A server that reaches the cluster port without the route password joins nothing.
    for (const credentials of ['', 'route:wrong-password@']) {
      const rogue = await startNatsServer(
        (ctx) =>
          [
            `port: ${ctx.port}`,
            `cluster { name: "munim", port: -1, routes: ["nats://${credentials}127.0.0.1:${clusterPorts[0]}"] }`,
          ].join('\n'),
        {},
      );
      try {
        await expect.poll(() => rogue.output(), { timeout: 10_000 }).toMatch(/Authorization Violation/);
      } finally {
        await rogue.stop();
      }
    }
    await expect.poll(() => servers[0]?.output(), { timeout: 10_000 }).toMatch(/authentication error/);
  }, 60_000);
});

/** The munim-nats Secret: a password per service and for migrate, and the route password (URL-safe, as openssl rand -hex). */
function natsSecret(): Record<ServiceName | 'migrate' | 'route', string> {
  return { ...natsPasswords(), route: randomBytes(24).toString('hex') };
}

/** The environment of the NATS container of pod `nats-<index>`, as the kubelet builds it from the manifest. */
function natsContainerEnv(secret: Record<string, string>, index: number): Record<string, string> {
  const nats = named<IStatefulSet>('StatefulSet', NATS_K8S.statefulSet);
  const env: Record<string, string> = {};
  for (const e of nats?.spec?.template.spec?.containers[0]?.env ?? []) {
    const ref = e.valueFrom?.secretKeyRef;
    if (ref) {
      expect(ref.name).toBe('munim-nats');
      env[e.name] = secret[ref.key] as string;
    } else if (e.valueFrom?.fieldRef?.fieldPath === 'metadata.name')
      env[e.name] = `${NATS_K8S.statefulSet}-${index}`;
    // Kubernetes' $(VAR): a variable defined earlier in the list.
    else
      env[e.name] = (e.value ?? '').replace(
        /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
        (whole, name: string) => env[name] ?? whole,
      );
  }
  return env;
}

/**
 * Fields the Kubernetes API does not define: each manifest is type-checked against kubernetes-models'
 * interface for its kind, whose object types list exactly the API's fields.
 */
function unknownFields(docs: Located[]): string[] {
  const file = join(ROOT, '__k8s_manifests__.ts');
  const imports = docs.map(
    ({ doc }, i) =>
      `import type { I${doc.kind} as T${i} } from 'kubernetes-models/${doc.apiVersion}/${doc.kind}';`,
  );
  // The first line of each manifest in the generated file, to name it in a diagnostic.
  const starts: { line: number; what: string }[] = [];
  const body: string[] = [];
  let line = imports.length;
  docs.forEach(({ file: source, doc }, i) => {
    const chunk = `export const m${i}: T${i} = ${JSON.stringify(doc, null, 2)};`;
    starts.push({ line, what: `${source} ${doc.kind}/${doc.metadata.name}` });
    body.push(chunk);
    line += chunk.split('\n').length;
  });
  const text = [...imports, ...body].join('\n');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile;
  const fileExists = host.fileExists;
  host.getSourceFile = (name, language, ...rest) =>
    name === file
      ? ts.createSourceFile(name, text, language)
      : getSourceFile.call(host, name, language, ...rest);
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  const program = ts.createProgram([file], options, host);
  const source = program.getSourceFile(file) as ts.SourceFile;
  return ts.getPreEmitDiagnostics(program, source).map((d) => {
    const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
    const what = starts.filter((s) => s.line <= line).at(-1)?.what ?? '?';
    return `${what}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}
