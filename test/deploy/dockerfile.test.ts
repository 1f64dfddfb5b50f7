/**
 * The Dockerfile, checked offline (there is no Docker engine here), parsed with dockerfile-ast (the
 * parser of the Docker language server): layers that survive a source change, production dependencies
 * only, a non-root runtime with a health check, and every file the services read at run time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

const dockerfile = DockerfileParser.parse(read('Dockerfile'));

interface Stage {
  name: string | null;
  image: string;
  instructions: Instruction[];
}

/** The build stages, each with the instructions from its FROM to the next. */
const stages: Stage[] = [];
for (const instruction of dockerfile.getInstructions()) {
  if (instruction.getKeyword() === 'FROM') {
    const args = instruction.getArguments().map((a) => a.getValue());
    stages.push({
      name: args[1]?.toUpperCase() === 'AS' ? (args[2] ?? null) : null,
      image: args[0] ?? '',
      instructions: [],
    });
  } else stages.at(-1)?.instructions.push(instruction);
}
const runtime = stages.at(-1) as Stage;
const of = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.getKeyword() === keyword);
const args = (i: Instruction) => i.getArguments().map((a) => a.getValue());
const flags = (i: Instruction) =>
  Object.fromEntries(
    ('getFlags' in i ? (i.getFlags as () => { getName(): string; getValue(): string | null }[])() : []).map(
      (f) => [f.getName(), f.getValue()],
    ),
  );
/** The JSON (exec) form of an instruction: ENTRYPOINT ["…"], HEALTHCHECK … CMD ["…"]. */
const execForm = (i: Instruction): string[] => {
  const content = i.getArgumentsContent() ?? '';
  return JSON.parse(content.slice(content.indexOf('['))) as string[];
};
/** A COPY's sources and destination, normalised (no ./ prefix, no trailing /). */
const copy = (i: Instruction) => {
  const paths = args(i).map((p) => p.replace(/^\.\//, '').replace(/\/$/, '') || '.');
  return { sources: paths.slice(0, -1), dest: paths.at(-1) as string, from: flags(i).from ?? null };
};
const isInstall = (i: Instruction) =>
  i.getKeyword() === 'RUN' && /\bpnpm\b.*\binstall\b/.test(args(i).join(' '));

/** The workspace's projects (pnpm-workspace.yaml), by directory, with their manifests. */
interface Project {
  dir: string;
  name: string;
  dependencies: Record<string, string>;
}
const workspace = parse(read('pnpm-workspace.yaml')) as { packages: string[] };
const projects: Project[] = workspace.packages.flatMap((glob) => {
  const base = glob.replace(/\/\*$/, '');
  return readdirSync(join(ROOT, base), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, base, d.name, 'package.json')))
    .map((d) => {
      const dir = `${base}/${d.name}`;
      const manifest = JSON.parse(read(`${dir}/package.json`)) as Project;
      return { dir, name: manifest.name, dependencies: manifest.dependencies ?? {} };
    });
});
const byName = new Map(projects.map((p) => [p.name, p]));

/** What the image runs (its ENTRYPOINT): every service and the demo books server. */
const runnable = projects.filter((p) => p.dir.startsWith('services/') || p.dir === 'infra/demo-books');
/** Those and the workspace packages they depend on at run time, transitively. */
const closure = new Set<Project>();
const visit = (p: Project) => {
  if (closure.has(p)) return;
  closure.add(p);
  for (const [name, spec] of Object.entries(p.dependencies))
    if (spec.startsWith('workspace:')) visit(byName.get(name) as Project);
};
runnable.forEach(visit);

/** Every .ts file under a directory. */
const sources = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && d.name.endsWith('.ts'))
    .map((d) => relative(ROOT, join(d.parentPath, d.name)));

/** Developer scripts inside src that the services never load (they write repository files). */
const NOT_RUN = ['packages/bus/src/render-nats-conf.ts'];

describe('Dockerfile', () => {
  it('has a dependencies stage and a runtime stage, both node 24', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage.image).toMatch(/^node:24(\.|-|$)/);
    expect(runtime.name).not.toBeNull();
  });

  it('installs dependencies from the manifests, the lockfile and the patches before any source is copied', () => {
    const deps = stages.find((s) => s.instructions.some(isInstall)) as Stage;
    expect(deps, 'a stage that runs pnpm install').toBeDefined();
    const installAt = deps.instructions.findIndex(isInstall);
    const before = deps.instructions
      .slice(0, installAt)
      .filter((i) => i.getKeyword() === 'COPY')
      .map(copy);
    const copied = before.flatMap((c) => c.sources);
    const manifests = ['package.json', 'pnpm-lock.yaml', 'pnpm-workspace.yaml', 'patches'];
    const allowed = new Set([...manifests, ...projects.map((p) => `${p.dir}/package.json`)]);
    for (const source of copied) expect(allowed, `${source} copied before the install`).toContain(source);
    // Every project's manifest, or `--frozen-lockfile` finds a workspace that is not the lockfile's.
    expect([...copied].sort()).toEqual([...allowed].sort());
    for (const c of before.filter((c) => c.sources.some((s) => s.endsWith('/package.json'))))
      expect(c.dest).toBe(dirname(c.sources[0] as string));
    expect(args(deps.instructions[installAt] as Instruction)).toContain('--frozen-lockfile');
    // Nothing is copied into the dependencies stage after the install, so its layers depend on manifests only.
    expect(deps.instructions.slice(installAt + 1).filter((i) => i.getKeyword() === 'COPY')).toEqual([]);
    expect(deps).not.toBe(runtime);
  });

  it('installs production dependencies only, for the projects the image runs', () => {
    const installs = stages.flatMap((s) => s.instructions.filter(isInstall));
    expect(installs).toHaveLength(1);
    const install = args(installs[0] as Instruction);
    expect(install.some((a) => a === '--prod' || a === '-P')).toBe(true);
    // The filters select the runnable projects with their dependencies (`…`), and nothing dev-only.
    const filters = install
      .filter((_, i) => install[i - 1] === '--filter')
      .map((f) => f.replace(/^["']|["']$/g, ''));
    const selected = filters.map((f) => {
      const m = /^\{\.\/(.+)\}\.\.\.$/.exec(f);
      expect(m, `${f}: a directory selector with its dependencies`).not.toBeNull();
      return new RegExp(`^${(m?.[1] ?? '').replace(/\*/g, '[^/]+')}$`);
    });
    for (const p of runnable)
      expect(
        selected.some((re) => re.test(p.dir)),
        p.dir,
      ).toBe(true);
    for (const p of projects.filter((p) => !closure.has(p)))
      expect(
        selected.some((re) => re.test(p.dir)),
        `${p.dir} is dev-only`,
      ).toBe(false);
    // The runtime stage installs nothing: its node_modules come from the dependencies stage.
    expect(of(runtime, 'RUN')).toEqual([]);
    const fromDeps = of(runtime, 'COPY').filter((i) => copy(i).from !== null);
    expect(fromDeps.map((i) => copy(i).from)).toEqual([
      stages.find((s) => s.instructions.some(isInstall))?.name,
    ]);
  });

  it('copies the sources only after the dependencies, and never the whole context', () => {
    const copies = of(runtime, 'COPY').map(copy);
    expect(copies[0]?.from, 'dependencies first').not.toBeNull();
    for (const c of stages.flatMap((s) => of(s, 'COPY').map(copy))) {
      expect(c.sources).not.toContain('.');
      for (const source of c.sources)
        expect(source).not.toMatch(/(^|\/)(test|node_modules|\.data|\.tools)(\/|$)/);
    }
  });

  it('copies every file the runtime needs: the sources of the services, demo books and their packages', () => {
    const targets = of(runtime, 'COPY')
      .map(copy)
      .filter((c) => c.from === null);
    for (const c of targets) {
      expect(c.sources).toHaveLength(1);
      expect(c.dest, 'copied to the same path').toBe(c.sources[0]);
      expect(existsSync(join(ROOT, c.sources[0] as string)), c.sources[0]).toBe(true);
    }
    const copied = targets.map((c) => c.dest);
    const covered = (path: string) => copied.some((dir) => path === dir || path.startsWith(`${dir}/`));
    for (const p of closure) expect(copied, `${p.dir}/src`).toContain(`${p.dir}/src`);
    // Dev-only packages stay out.
    for (const p of projects.filter((p) => !closure.has(p)))
      expect(covered(`${p.dir}/src`), p.dir).toBe(false);
    // Files the sources open by a URL relative to themselves (the console's static files, workers).
    for (const p of closure)
      for (const file of sources(`${p.dir}/src`).filter((f) => !NOT_RUN.includes(f))) {
        for (const m of read(file).matchAll(/new URL\(\s*'(\.{1,2}\/[^']*)'\s*,\s*import\.meta\.url\s*\)/g)) {
          const target = relative(ROOT, resolve(ROOT, dirname(file), m[1] as string));
          expect(covered(target), `${file} reads ${target}`).toBe(true);
        }
      }
  });

  it('runs as a non-root user, with a health check that the image holds', () => {
    const users = of(runtime, 'USER');
    expect(users).toHaveLength(1);
    const [user, group] = (args(users[0] as Instruction)[0] as string).split(':');
    // Numeric, so Kubernetes' runAsNonRoot can check it.
    expect(user).toMatch(/^\d+$/);
    expect(Number(user)).toBeGreaterThan(0);
    if (group !== undefined) expect(Number(group)).toBeGreaterThan(0);

    const checks = of(runtime, 'HEALTHCHECK');
    expect(checks).toHaveLength(1);
    const check = checks[0] as Instruction;
    expect(Object.keys(flags(check))).toEqual(
      expect.arrayContaining(['interval', 'timeout', 'start-period']),
    );
    const command = execForm(check);
    expect(command[0]).toBe('node');
    const script = command[1] as string;
    expect(existsSync(join(ROOT, script)), script).toBe(true);
    expect(
      of(runtime, 'COPY').some((i) => script.startsWith(`${copy(i).dest}/`)),
      `${script} is in the image`,
    ).toBe(true);
  });

  it('is one image for every service: SERVICE picks what runs, HEALTH_PORT is where it answers probes', () => {
    const env = Object.fromEntries(
      of(runtime, 'ENV').flatMap((i) => args(i).map((a) => a.split('=') as [string, string])),
    );
    expect(env).toMatchObject({
      NODE_ENV: 'production',
      SERVICE: 'gateway',
      HEALTH_PORT: expect.any(String),
    });
    // The gateway's port, messaging's (its webhook and probes), and every other service's probes.
    expect(of(runtime, 'EXPOSE').flatMap(args)).toEqual(
      expect.arrayContaining(['8080', '8090', env.HEALTH_PORT]),
    );
    const entrypoints = of(runtime, 'ENTRYPOINT');
    expect(entrypoints).toHaveLength(1);
    const script = execForm(entrypoints[0] as Instruction).join(' ');
    expect(script).toContain('exec node services/$SERVICE/src/main.ts');
    expect(script).toContain('exec node infra/demo-books/src/main.ts');
    // The migration job: the database schema, then (only if that worked) the JetStream streams.
    expect(script).toContain(
      'node packages/db/src/migrate-main.ts && exec node packages/kit/src/migrate-streams.ts',
    );
    for (const p of runnable.filter((p) => p.dir.startsWith('services/')))
      expect(existsSync(join(ROOT, p.dir, 'src/main.ts')), p.dir).toBe(true);
  });
});

describe('.dockerignore', () => {
  it('keeps local data, toolchains, dependencies, tests, secrets and history out of the build context', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignored).toEqual(
      expect.arrayContaining([
        '.data',
        '.tools',
        'node_modules',
        '**/node_modules',
        '.git',
        '**/test',
        'test',
        '.env',
      ]),
    );
  });
});
