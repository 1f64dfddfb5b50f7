import { readFileSync } from 'node:fs';
import {
  type ConfirmationTier,
  classifyTool,
  DESTRUCTIVE_VERBS,
  type PolicyWriteRules,
  PolicyWriteRulesSchema,
  parseToolName,
  type ToolAccess,
  type ToolAnnotations,
  type ToolPolicyDecision,
} from '@munim/contracts';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

/** The tool policy file is unreadable or malformed; the message names the entry. */
export class ToolPolicyError extends Error {
  override name = 'ToolPolicyError';
}

// Negation and extglobs have no specificity one can state, and tool names never hold these characters.
const GlobSchema = z
  .string()
  .min(1)
  .max(200)
  .refine((pattern) => !/^!|[()|]/.test(pattern), {
    message: 'negation (!…) and extglobs (@(…), +(…), a|b) are not supported: use *, ?, […] and {a,b}',
  });

const ToolEntrySchema = z
  .strictObject({
    /** A tool name or glob (`*`, `?`, `{a,b}`), as the server lists it. */
    match: GlobSchema,
    /** The server (its name in MCP_SERVERS, `mcp` for MCP_SERVER_URL) or a glob; any when absent. */
    server: GlobSchema.optional(),
    access: z.enum(['read', 'write']).optional(),
    /** 0 exempts the write from confirmation; 1 confirm; 2 summary of changes; 3 typed. */
    tier: z.literal([0, 1, 2, 3], { error: 'must be 0 (no confirmation), 1, 2 or 3' }).optional(),
    rules: PolicyWriteRulesSchema.optional(),
    /** Lets this entry give tier 0 (or a read) to a destructive tool, which is refused otherwise. */
    allowUnconfirmedDestructive: z.boolean().optional(),
  })
  .refine((e) => e.access !== undefined || e.tier !== undefined || e.rules !== undefined, {
    message: 'says nothing: give access, tier or rules',
  })
  .refine((e) => e.access !== 'read' || (e.tier === undefined && e.rules === undefined), {
    message: 'a read has no tier or rules',
  })
  .refine((e) => e.allowUnconfirmedDestructive !== true || e.access === 'read' || e.tier === 0, {
    message: 'allowUnconfirmedDestructive: true is for an entry giving tier 0 or access read',
  });

const ServerEntrySchema = z.strictObject({
  /** Take this server's `readOnlyHint: true` as true (MCP: only for servers you trust). */
  trustAnnotations: z.boolean().optional(),
});

/** The operator's tool policy: which servers' annotations to trust, and per tool read/write, tier, rules. */
export const ToolPolicySchema = z.strictObject({
  servers: z.record(GlobSchema, ServerEntrySchema).optional(),
  tools: z.array(ToolEntrySchema).optional(),
});
export type ToolPolicyFile = z.infer<typeof ToolPolicySchema>;

const glob = (pattern: string) => picomatch(pattern, { dot: true, nocase: false });

/** Names an entry for people: `tools[2] (match "post_*")`. */
function entryName(file: unknown, path: readonly PropertyKey[]): string {
  const [section, index] = path;
  if (section === 'tools' && typeof index === 'number') {
    const entry = (file as { tools?: unknown[] }).tools?.[index] as { match?: unknown } | undefined;
    return typeof entry?.match === 'string' ? `tools[${index}] (match "${entry.match}")` : `tools[${index}]`;
  }
  if (section === 'servers' && typeof index === 'string') return `servers."${index}"`;
  return String(section ?? 'the file');
}

/** A glob read as parts: what a name must hold as written, and where it may hold anything. */
type GlobPart =
  | { kind: 'literal'; char: string }
  | { kind: 'star' }
  | { kind: 'one'; sample: string }
  | { kind: 'brace'; alternatives: GlobPart[][] };

/** Reads a glob from `from` (in a brace group, up to its `,` or `}`): its parts and where it stopped. */
function readGlob(pattern: string, from: number, inBrace: boolean): { parts: GlobPart[]; end: number } {
  const parts: GlobPart[] = [];
  let i = from;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (inBrace && (c === ',' || c === '}')) break;
    if (c === '\\' && i + 1 < pattern.length) {
      parts.push({ kind: 'literal', char: pattern[i + 1] as string });
      i += 2;
    } else if (c === '*') {
      if (parts.at(-1)?.kind !== 'star') parts.push({ kind: 'star' });
      i += 1;
    } else if (c === '?') {
      parts.push({ kind: 'one', sample: 'x' });
      i += 1;
    } else if (c === '[' && pattern.indexOf(']', i + 2) > 0) {
      const close = pattern.indexOf(']', i + 2);
      const body = pattern.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      parts.push({ kind: 'one', sample: negated ? 'x' : (body[0] as string) });
      i = close + 1;
    } else if (c === '{') {
      const alternatives: GlobPart[][] = [];
      let j = i + 1;
      let closed = false;
      while (j <= pattern.length) {
        const read = readGlob(pattern, j, true);
        alternatives.push(read.parts);
        j = read.end + 1;
        if (pattern[read.end] === '}') {
          closed = true;
          break;
        }
        if (read.end >= pattern.length) break;
      }
      if (closed && alternatives.length > 1) {
        parts.push({ kind: 'brace', alternatives });
        i = j;
      } else {
        parts.push({ kind: 'literal', char: c });
        i += 1;
      }
    } else {
      parts.push({ kind: 'literal', char: c });
      i += 1;
    }
  }
  return { parts, end: i };
}

/** How specific a glob is: see {@link ToolPolicy}. */
interface Specificity {
  exact: boolean;
  literals: number;
  stars: number;
}

function measure(parts: readonly GlobPart[]): Specificity {
  let literals = 0;
  let stars = 0;
  let exact = true;
  for (const part of parts) {
    if (part.kind === 'literal') literals += 1;
    else if (part.kind === 'star') {
      stars += 1;
      exact = false;
    } else if (part.kind === 'one') exact = false;
    else {
      const each = part.alternatives.map(measure);
      literals += Math.min(...each.map((m) => m.literals));
      stars += Math.max(...each.map((m) => m.stars));
      exact = false;
    }
  }
  return { exact, literals, stars };
}

const MAX_PROBES = 64;

/** Names a glob matches with each `*` holding `fill` (brace alternatives each, up to a bound). */
function render(parts: readonly GlobPart[], fill: string): string[] {
  let out = [''];
  for (const part of parts) {
    const tails =
      part.kind === 'literal'
        ? [part.char]
        : part.kind === 'star'
          ? [fill]
          : part.kind === 'one'
            ? [part.sample]
            : part.alternatives.flatMap((alternative) => render(alternative, fill));
    out = out.flatMap((head) => tails.map((tail) => head + tail)).slice(0, MAX_PROBES);
  }
  return out;
}

interface CompiledPattern extends Specificity {
  text: string;
  parts: GlobPart[];
  test: (name: string) => boolean;
}

function compile(pattern: string): CompiledPattern {
  const { parts } = readGlob(pattern, 0, false);
  return { text: pattern, parts, test: glob(pattern), ...measure(parts) };
}

interface CompiledEntry {
  index: number;
  /** Names the entry for people: `tools[2] "post_journal"`. */
  source: string;
  tool: CompiledPattern;
  server?: CompiledPattern | undefined;
  access?: 'read' | 'write' | undefined;
  tier?: ConfirmationTier | undefined;
  rules?: PolicyWriteRules | undefined;
  allowUnconfirmedDestructive: boolean;
}

/** The entry's rank, compared field by field: the greater decides. */
function rank(entry: CompiledEntry): number[] {
  const { tool, server } = entry;
  return [
    tool.exact ? 1 : 0,
    tool.literals,
    -tool.stars,
    server ? (server.exact ? 2 : 1) : 0,
    server?.literals ?? 0,
    -(server?.stars ?? 0),
  ];
}

function compareRank(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i += 1) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return 0;
}

/** The most specific entries that set a field (several only when equally specific). */
function mostSpecific(entries: readonly CompiledEntry[]): CompiledEntry[] {
  let best: CompiledEntry[] = [];
  let bestRank: number[] | undefined;
  for (const entry of entries) {
    const r = rank(entry);
    const d = bestRank ? compareRank(r, bestRank) : 1;
    if (d > 0) {
      best = [entry];
      bestRank = r;
    } else if (d === 0) best.push(entry);
  }
  return best;
}

const union = (lists: (readonly string[] | undefined)[]): string[] | undefined => {
  const all = lists.flatMap((list) => list ?? []);
  return all.length > 0 ? [...new Set(all)] : undefined;
};

/** Rules of equally specific entries together: every field any of them names. */
function mergeRules(all: readonly PolicyWriteRules[]): PolicyWriteRules {
  if (all.length === 1) return all[0] as PolicyWriteRules;
  const merged: PolicyWriteRules = {};
  const required = union(all.map((r) => r.required));
  const nonEmpty = union(all.map((r) => r.nonEmpty));
  const positive = union(all.map((r) => r.positive));
  if (required) merged.required = required;
  if (nonEmpty) merged.nonEmpty = nonEmpty;
  if (positive) merged.positive = positive;
  if (all.some((r) => r.balancedJournal !== undefined))
    merged.balancedJournal = all.some((r) => r.balancedJournal === true);
  return merged;
}

type Field = 'access' | 'tier' | 'rules';
const FIELDS: readonly Field[] = ['access', 'tier', 'rules'];

/** What the policy says of one tool, and which entries said each part of it. */
interface Resolution {
  decision: ToolPolicyDecision;
  deciders: Partial<Record<Field, CompiledEntry[]>>;
}

/** A server name no entry names, for entries that apply to any server. */
const ANY_SERVER = '\u0000any server';

/**
 * The operator's tool policy (`TOOL_POLICY_FILE`, JSON or YAML). For each of access, tier and rules,
 * the most specific entry matching the tool (and server) that sets it decides, wherever it stands
 * in the file:
 *
 * 1. an exact name (no `*`, `?`, `[…]` or `{…}`) beats every glob;
 * 2. between globs, the one with more literal characters (characters a name must hold as written;
 *    a `{a,bc}` group counts its shortest alternative, `?` and `[…]` count none) wins;
 * 3. then the one with fewer `*` (a run of them counts once);
 * 4. then, at equal tool specificity, an exact server name beats a server glob (ranked as above),
 *    which beats an entry for any server;
 * 5. equally specific entries agree on the stricter: write over read, the higher tier, and the
 *    rules of all of them together.
 *
 * A tier 0 (or a read) for a destructive tool is refused unless the deciding entry says
 * `allowUnconfirmedDestructive: true`: at start for the names an entry can reach
 * ({@link ToolPolicy.refuseUnconfirmedDestructive}), and at every listing for the tool itself
 * ({@link ToolPolicy.classify}), which keeps its own tier.
 */
export class ToolPolicy {
  readonly #entries: CompiledEntry[];
  readonly #trusted: ((server: string) => boolean)[];

  private constructor(file: ToolPolicyFile) {
    this.#entries = (file.tools ?? []).map((entry, index) => ({
      index,
      source: `tools[${index}] "${entry.match}"`,
      tool: compile(entry.match),
      server: entry.server ? compile(entry.server) : undefined,
      access: entry.access,
      tier: entry.tier,
      rules: entry.rules,
      allowUnconfirmedDestructive: entry.allowUnconfirmedDestructive === true,
    }));
    this.#trusted = Object.entries(file.servers ?? {})
      .filter(([, server]) => server.trustAnnotations === true)
      .map(([pattern]) => glob(pattern));
  }

  /** No policy: names and untrusted annotations decide. */
  static readonly none = new ToolPolicy({});

  /** Parses a policy's text (YAML, of which JSON is a part); throws a ToolPolicyError naming the bad entry. */
  static parse(text: string): ToolPolicy {
    let raw: unknown;
    try {
      raw = parseYaml(text);
    } catch (error) {
      throw new ToolPolicyError(`is not valid JSON or YAML: ${(error as Error).message}`, { cause: error });
    }
    const parsed = ToolPolicySchema.safeParse(raw ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = entryName(raw, issue?.path ?? []);
      const field = issue && issue.path.length > 2 ? `${issue.path.slice(2).join('.')}: ` : '';
      throw new ToolPolicyError(`${where}: ${field}${issue?.message ?? 'is invalid'}`);
    }
    return new ToolPolicy(parsed.data);
  }

  /** Reads and parses a policy file. */
  static load(path: string): ToolPolicy {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw new ToolPolicyError(
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): ${path}`,
        {
          cause: error,
        },
      );
    }
    return ToolPolicy.parse(text);
  }

  /** Whether the operator trusts this server's annotations. */
  trusts(server: string): boolean {
    return this.#trusted.some((match) => match(server));
  }

  /** What the policy says of a tool of a server (by the server's own name for it). */
  decide(server: string, tool: string): ToolPolicyDecision | undefined {
    return this.#resolve(server, tool)?.decision;
  }

  /**
   * Classifies a listed tool of a server through the policy. A tier 0 (or a read) the policy gives
   * a tool `classifyTool` finds destructive is refused, unless every entry that decided it says
   * `allowUnconfirmedDestructive: true`: the tool keeps the tier it has without it, and `refused`
   * names the entries (for an error log).
   */
  classify(
    tool: string,
    annotations: ToolAnnotations | undefined,
    opts: { server: string; description?: string | undefined },
  ): { access: ToolAccess; refused?: string } {
    const resolved = this.#resolve(opts.server, tool);
    const base = {
      description: opts.description,
      server: opts.server,
      trustAnnotations: this.trusts(opts.server),
    };
    const access = classifyTool(tool, annotations, { ...base, policy: resolved?.decision });
    if (!resolved || access.tier !== 0) return { access };
    const guarded = guard(resolved);
    if (!guarded.refused || !classifyTool(tool, annotations, base).destructive) return { access };
    const kept = classifyTool(tool, annotations, { ...base, policy: guarded.decision });
    return {
      access: {
        ...kept,
        detail: `${kept.detail}; tier 0 from the tool policy (${guarded.refused}) refused: the tool is destructive and the entry does not say allowUnconfirmedDestructive: true`,
      },
      refused: guarded.refused,
    };
  }

  /**
   * Stops a policy that gives tier 0 (or a read) to destructive tools, unless the deciding entry says
   * `allowUnconfirmedDestructive: true`. Checked for the names an entry reaches whose verb is
   * destructive, each `*` holding a neutral word or a destructive verb (`void_*` reaches `void_x`,
   * `*` reaches `delete`, `*_invoice` reaches `delete_invoice`), and for an exact name as it stands. Returns the policy; throws a ToolPolicyError
   * naming the entry and one such name.
   */
  refuseUnconfirmedDestructive(): this {
    for (const entry of this.#entries) {
      if ((entry.access !== 'read' && entry.tier !== 0) || entry.allowUnconfirmedDestructive) continue;
      const server = entry.server ? (render(entry.server.parts, 'x')[0] ?? ANY_SERVER) : ANY_SERVER;
      for (const name of reachedDestructive(entry.tool)) {
        const resolved = this.#resolve(server, name);
        if (resolved && guard(resolved).entries.includes(entry))
          throw new ToolPolicyError(
            `tools[${entry.index}] (match "${entry.tool.text}"): gives tier 0 (no confirmation) to destructive tools, "${name}" for one; narrow the match, or say allowUnconfirmedDestructive: true`,
          );
      }
    }
    return this;
  }

  #resolve(server: string, tool: string): Resolution | undefined {
    const matching = this.#entries.filter(
      (entry) => (entry.server?.test(server) ?? true) && entry.tool.test(tool),
    );
    const decision: ToolPolicyDecision = {};
    const deciders: Resolution['deciders'] = {};
    for (const field of FIELDS) {
      const tied = mostSpecific(matching.filter((entry) => entry[field] !== undefined));
      if (tied.length === 0) continue;
      if (field === 'access') {
        decision.access = tied.some((e) => e.access === 'write') ? 'write' : 'read';
        deciders.access = tied.filter((e) => e.access === decision.access);
      } else if (field === 'tier') {
        const tier = Math.max(...tied.map((e) => e.tier as number)) as ConfirmationTier;
        decision.tier = tier;
        deciders.tier = tied.filter((e) => e.tier === tier);
      } else {
        decision.rules = mergeRules(tied.map((e) => e.rules as PolicyWriteRules));
        deciders.rules = tied;
      }
    }
    if (Object.keys(deciders).length === 0) return undefined;
    return { decision: { ...decision, source: sourceOf(deciders) }, deciders };
  }
}

/** Names the deciding entries: one alone, or each with the fields it decided. */
function sourceOf(deciders: Resolution['deciders']): string {
  const fields = new Map<CompiledEntry, Field[]>();
  for (const field of FIELDS) {
    for (const entry of deciders[field] ?? []) fields.set(entry, [...(fields.get(entry) ?? []), field]);
  }
  const entries = [...fields.keys()].sort((a, b) => a.index - b.index);
  if (entries.length === 1) return (entries[0] as CompiledEntry).source;
  return entries.map((entry) => `${entry.source} (${fields.get(entry)?.join(', ')})`).join(', ');
}

/**
 * The decision without the tier 0 (or read) that entries lacking `allowUnconfirmedDestructive` gave;
 * `refused` names them, `entries` lists them.
 */
function guard(resolved: Resolution): {
  decision: ToolPolicyDecision;
  entries: CompiledEntry[];
  refused?: string;
} {
  const entries: CompiledEntry[] = [];
  const decision = { ...resolved.decision };
  const unallowed = (list: CompiledEntry[] | undefined) =>
    (list ?? []).filter((entry) => !entry.allowUnconfirmedDestructive);
  if (decision.access === 'read') {
    const by = unallowed(resolved.deciders.access);
    if (by.length === 0) return { decision, entries };
    entries.push(...by);
    delete decision.access;
  }
  if (decision.tier === 0) {
    const by = unallowed(resolved.deciders.tier);
    if (by.length > 0) {
      entries.push(...by);
      delete decision.tier;
    }
  }
  if (entries.length === 0) return { decision, entries };
  return { decision, entries, refused: entries.map((entry) => entry.source).join(', ') };
}

/** Destructive names a tool pattern reaches (see {@link ToolPolicy.refuseUnconfirmedDestructive}). */
function reachedDestructive(pattern: CompiledPattern): string[] {
  if (pattern.exact) {
    const name = render(pattern.parts, '')[0] ?? pattern.text;
    return classifyTool(name).destructive ? [name] : [];
  }
  const names: string[] = [];
  // A neutral word first, so a glob that names the verb itself is reported by a name people read.
  for (const fill of ['x', ...DESTRUCTIVE_VERBS]) {
    for (const name of render(pattern.parts, fill)) {
      const verb = parseToolName(name).mainVerb;
      if (verb && DESTRUCTIVE_VERBS.has(verb) && pattern.test(name)) names.push(name);
    }
  }
  return names;
}
