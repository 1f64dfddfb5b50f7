import {
  classifyTool,
  type ToolAccess,
  type ToolAnnotations,
  type ToolPolicyDecision,
} from '@munim/contracts';
import { ANY_SERVER, guard, reachedDestructive } from './policy-destructive.ts';
import { parsePolicyText, readPolicyFile, ToolPolicyError, type ToolPolicyFile } from './policy-file.ts';
import { compile, glob, render } from './policy-glob.ts';
import { type CompiledEntry, type Resolution, resolve } from './policy-resolve.ts';

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
    return new ToolPolicy(parsePolicyText(text));
  }

  /** Reads and parses a policy file. */
  static load(path: string): ToolPolicy {
    return ToolPolicy.parse(readPolicyFile(path));
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
   * `*` reaches `delete`, `*_invoice` reaches `delete_invoice`), and for an exact name as it
   * stands. Returns the policy; throws a ToolPolicyError naming the entry and one such name.
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
    return resolve(this.#entries, server, tool);
  }
}
