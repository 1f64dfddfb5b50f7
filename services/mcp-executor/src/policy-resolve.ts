import type { ConfirmationTier, PolicyWriteRules, ToolPolicyDecision } from '@munim/contracts';
import type { CompiledPattern } from './policy-glob.ts';

export interface CompiledEntry {
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
export interface Resolution {
  decision: ToolPolicyDecision;
  deciders: Partial<Record<Field, CompiledEntry[]>>;
}

/**
 * What the entries say of a tool of a server: for each field, the most specific matching entries
 * that set it decide (see `ToolPolicy` in policy.ts for the order).
 */
export function resolve(
  entries: readonly CompiledEntry[],
  server: string,
  tool: string,
): Resolution | undefined {
  const matching = entries.filter((entry) => (entry.server?.test(server) ?? true) && entry.tool.test(tool));
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
