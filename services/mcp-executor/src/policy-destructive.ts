import { classifyTool, DESTRUCTIVE_VERBS, parseToolName, type ToolPolicyDecision } from '@munim/contracts';
import { type CompiledPattern, render } from './policy-glob.ts';
import type { CompiledEntry, Resolution } from './policy-resolve.ts';

/** A server name no entry names, for entries that apply to any server. */
export const ANY_SERVER = '\u0000any server';

/**
 * The decision without the tier 0 (or read) that entries lacking `allowUnconfirmedDestructive` gave;
 * `refused` names them, `entries` lists them.
 */
export function guard(resolved: Resolution): {
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

/** Destructive names a tool pattern reaches (see `ToolPolicy.refuseUnconfirmedDestructive` in policy.ts). */
export function reachedDestructive(pattern: CompiledPattern): string[] {
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
