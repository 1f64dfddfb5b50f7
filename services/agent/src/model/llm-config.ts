import type { Bus } from '@munim/bus';
import { type Database, isSecretKeyText, openLlmKey, SECRET_KEY_SHAPE } from '@munim/db';
import {
  EMPTY_ALLOWLIST,
  type EndpointAllowlist,
  EndpointAllowlistSchema,
  endpointProblem,
  type Logger,
  parseEnv,
  type Resolver,
} from '@munim/kit';
import { type Kysely, sql } from 'kysely';
import { z } from 'zod';
import { type BreakerOptions, Breakers } from './breaker.ts';
import { breakerReporter, type Candidate, failoverTurn } from './failover.ts';
import { createLlm, type Llm, type LlmConfig } from './llm.ts';

/** The agent's extra variable for database model configurations (kept apart from env.ts). */
export const LlmConfigEnvSchema = z.object({
  /** AES-256 key (32 bytes, hex or base64) that decrypts `llm_configs` API keys; the gateway's same key. */
  LLM_CONFIG_KEY: z.string().refine(isSecretKeyText, SECRET_KEY_SHAPE).optional(),
  /**
   * How often the agent checks whether the default configuration changed, for a change notice it
   * missed (it was reconnecting to NATS when the notice went out); 0: notices only.
   */
  LLM_CONFIG_REFRESH_MS: z.coerce.number().int().min(0).default(60_000),
  /**
   * Hosts, addresses and CIDR ranges a database configuration's endpoint may use although they are
   * not public (the gateway's same list); OPENAI_BASE_URL is the operator's and is not checked.
   */
  LLM_ENDPOINT_ALLOWLIST: EndpointAllowlistSchema.default(EMPTY_ALLOWLIST),
});
export const loadLlmConfigEnv = (source: NodeJS.ProcessEnv = process.env) =>
  parseEnv(LlmConfigEnvSchema, source);

/** Client settings a database row does not carry; they come from the environment. */
export type ClientSettings = Pick<
  LlmConfig,
  'timeoutMs' | 'azureApiVersion' | 'systemRole' | 'maxRetries' | 'chunkTimeoutMs'
>;

/** The model in use: the client, the row it came from (null: the environment) and the row's defaults. */
type Current = Candidate;

/** The models a turn may use: the default first, then its fallbacks in order; never empty. */
type Chain = readonly [Current, ...Current[]];

/**
 * The default row is unusable: no key to decrypt it, a key sealed for another row, or an endpoint
 * that resolves to a non-public address without being allow-listed.
 */
export class LlmConfigError extends Error {
  override name = 'LlmConfigError';
}

const defaults = (db: Kysely<Database>) => db.selectFrom('llm_configs').where('is_default', '=', true);

/** The default `llm_configs` row, if there is one. */
const defaultRow = (db: Kysely<Database>) => defaults(db).selectAll().executeTakeFirst();
type ConfigRow = NonNullable<Awaited<ReturnType<typeof defaultRow>>>;

/**
 * Which default row and fallbacks, as of which edits: what the timed check compares; null when
 * there is no default.
 */
const versionOf = (rows: Pick<ConfigRow, 'id' | 'updated_at'>[]): string | null =>
  rows.length > 0 ? rows.map((row) => `${row.id}@${new Date(row.updated_at).toISOString()}`).join(',') : null;

/** The rows of a default's fallbacks that still exist, in its order. */
async function fallbackRows(db: Kysely<Database>, ids: readonly (string | number)[]): Promise<ConfigRow[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('llm_configs')
    .selectAll()
    .where(
      'id',
      'in',
      ids.map((id) => Number(id)),
    )
    .execute();
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  return ids.flatMap((id) => byId.get(Number(id)) ?? []);
}

/** Builds the client of a `llm_configs` row. */
function clientOf(
  row: ConfigRow,
  secretKey: Buffer | null,
  settings: ClientSettings,
  allowlist: EndpointAllowlist,
): Current {
  if (row.api_key_encrypted !== null && !secretKey) {
    throw new LlmConfigError(`model configuration ${row.id} has a key but LLM_CONFIG_KEY is not set`);
  }
  const apiKey =
    row.api_key_encrypted !== null && secretKey
      ? openLlmKey(secretKey, row, row.api_key_encrypted)
      : undefined;
  return {
    llm: createLlm({
      ...settings,
      baseURL: row.endpoint,
      apiKey,
      model: row.model,
      provider: row.provider,
      apiStyle: row.api_style,
      allowlist,
    }),
    configId: Number(row.id),
    temperature: row.temperature,
    maxTokens: row.max_tokens,
  };
}

/**
 * An `Llm` that forwards to the model currently configured, so the agent swaps models without a
 * restart: the default `llm_configs` row when there is one, else the environment's model. A call
 * that fails on it moves to the default's fallbacks in order (see `failoverTurn`). After each call
 * it adds the usage to the totals of the row that answered.
 */
export class SwitchableLlm implements Llm {
  #chain: Chain;
  readonly #envLlm: Llm | null;
  readonly #db: Kysely<Database>;
  readonly #log: Logger;
  readonly #breakers: Breakers;

  constructor(chain: Chain, envLlm: Llm | null, db: Kysely<Database>, log: Logger, breakers: Breakers) {
    this.#chain = chain;
    this.#envLlm = envLlm;
    this.#db = db;
    this.#log = log;
    this.#breakers = breakers;
  }

  /** `<provider>/<model>` of the model in use. */
  get label(): string {
    return this.#chain[0].llm.label;
  }

  /** The name of the model in use. */
  get model(): string {
    return this.#chain[0].llm.model;
  }

  /** The `llm_configs` id in use, or null for the environment's model. */
  get configId(): number | null {
    return this.#chain[0].configId;
  }

  /** Uses this model and its fallbacks from now on; calls already running finish on the old ones. */
  use(next: Chain | null): void {
    if (next) this.#chain = next;
    else if (this.#envLlm)
      this.#chain = [{ llm: this.#envLlm, configId: null, temperature: null, maxTokens: null }];
    else return;
    this.#log.info(
      {
        model: this.label,
        configId: this.configId,
        fallbacks: this.#chain.slice(1).map((c) => ({ model: c.llm.label, configId: c.configId })),
      },
      'model in use',
    );
  }

  async turn(input: Parameters<Llm['turn']>[0]) {
    const { turn, candidate: current } = await failoverTurn(this.#chain, input, this.#breakers, this.#log);
    if (current.configId !== null) {
      await this.#db
        .updateTable('llm_configs')
        .set({
          total_input_tokens: sql<number>`total_input_tokens + ${turn.usage.input_tokens}`,
          total_output_tokens: sql<number>`total_output_tokens + ${turn.usage.output_tokens}`,
          total_requests: sql<number>`total_requests + 1`,
        })
        .where('id', '=', current.configId)
        .execute()
        .catch((error: unknown) =>
          this.#log.warn({ err: error }, 'could not add usage to the model configuration'),
        );
    }
    return turn;
  }
}

/** What the agent's main needs to pick models from the database. */
export interface ModelSourceDeps {
  db: Kysely<Database>;
  bus: Bus;
  log: Logger;
  /** The environment's model (OPENAI_BASE_URL, LLM_MODEL): the bootstrap default. */
  fallback: Llm | null;
  secretKey: Buffer | null;
  settings: ClientSettings;
  /** Period of the check for a change whose notice was missed; 0 or unset: notices only. */
  refreshMs?: number;
  /** Non-public endpoint hosts and ranges a row may use (`LLM_ENDPOINT_ALLOWLIST`); unset: none. */
  allowlist?: EndpointAllowlist | undefined;
  /** When an endpoint's circuit opens and for how long (default: 3 failures in a row, 30 s). */
  breaker?: Pick<BreakerOptions, 'failures' | 'coolDownMs' | 'now'>;
  /** How endpoint hosts are resolved before use; the system resolver unless a test gives one. */
  resolve?: Resolver;
}

/** The version of the default row and its fallbacks, read alone (undefined: unreadable). */
async function defaultVersion(db: Kysely<Database>, log: Logger): Promise<string | null | undefined> {
  try {
    const row = await defaults(db).select(['id', 'updated_at', 'fallback_ids']).executeTakeFirst();
    if (!row) return null;
    return versionOf([row, ...(await fallbackRows(db, row.fallback_ids))]);
  } catch (error) {
    log.warn({ err: error }, 'could not read the default model configuration');
    return undefined;
  }
}

/**
 * The agent's model: the default `llm_configs` row when there is one, else the environment's; it
 * reloads on every `llmConfigChanged` notice. `llm` is null only when neither the database nor the
 * environment has a model at start; adding one then needs a restart, since the agent takes its model once.
 */
export async function createModelSource(deps: ModelSourceDeps) {
  const { db, bus, log, fallback } = deps;
  const breakers = new Breakers({
    failures: deps.breaker?.failures ?? 3,
    coolDownMs: deps.breaker?.coolDownMs ?? 30_000,
    ...(deps.breaker?.now ? { now: deps.breaker.now } : {}),
    onChange: breakerReporter(log),
  });
  /** A row's client, its endpoint checked again where it is used (rows are written through the admin API). */
  const usable = async (row: ConfigRow, retries: boolean): Promise<Current> => {
    const problem = await endpointProblem(row.endpoint, deps.allowlist, deps.resolve);
    if (problem) throw new LlmConfigError(`model configuration ${row.id}: endpoint ${problem}`);
    // Only the last of the chain retries in its client: the others fail over at once.
    const settings = retries ? deps.settings : { ...deps.settings, maxRetries: 0 };
    return clientOf(row, deps.secretKey, settings, deps.allowlist ?? EMPTY_ALLOWLIST);
  };
  /**
   * The default row's model and its usable fallbacks (null: no default, or an unusable one) and
   * their version (undefined: unreadable).
   */
  const load = async (): Promise<{ model: Chain | null; version: string | null | undefined }> => {
    let rows: ConfigRow[] = [];
    try {
      const row = await defaultRow(db);
      if (!row) return { model: null, version: null };
      rows = [row, ...(await fallbackRows(db, row.fallback_ids))];
      const missing = row.fallback_ids.length - (rows.length - 1);
      if (missing > 0) log.warn({ configId: row.id, missing }, 'model fallbacks not found; skipped');
      const primary = await usable(row, rows.length === 1);
      const fallbacks: Current[] = [];
      for (const [i, next] of rows.slice(1).entries()) {
        // A broken fallback is left out; the default and the other fallbacks still serve.
        const candidate = await usable(next, i === rows.length - 2).catch((error: unknown) => {
          log.warn({ err: error, configId: next.id }, 'model fallback unusable; skipped');
          return null;
        });
        if (candidate) fallbacks.push(candidate);
      }
      return { model: [primary, ...fallbacks], version: versionOf(rows) };
    } catch (error) {
      // A broken row must not take the agent down: keep answering with the environment's model.
      log.warn({ err: error }, 'default model configuration unusable; using the environment model');
      return { model: null, version: rows.length > 0 ? versionOf(rows) : undefined };
    }
  };
  const initial = await load();
  /** The version of the default row the model in use was loaded from (undefined: unknown). */
  let version = initial.version;
  const start: Chain | null =
    initial.model ?? (fallback && [{ llm: fallback, configId: null, temperature: null, maxTokens: null }]);
  const llm = start ? new SwitchableLlm(start, fallback, db, log, breakers) : null;
  let subscription: ReturnType<Bus['listen']> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let reloads = Promise.resolve();
  /** One reload at a time, in order, so the last change wins; the timed check only on a new version. */
  const reload = (model: SwitchableLlm, onlyIfChanged: boolean) => {
    reloads = reloads.then(async () => {
      if (onlyIfChanged) {
        const now = await defaultVersion(db, log);
        if (now === undefined || now === version) return;
        log.info({ version: now }, 'default model configuration changed; reloading');
      }
      const next = await load();
      version = next.version;
      model.use(next.model);
    });
  };
  return {
    llm,
    /** Listens for configuration changes (no-op without a model to swap). */
    start(): void {
      if (!llm) return;
      subscription = bus.listen('llmConfigChanged', (message) => {
        log.info({ ...message.data }, 'model configuration changed; reloading');
        reload(llm, false);
      });
      // A notice is fire-and-forget: an instance that was reconnecting misses it, so it also looks.
      if (deps.refreshMs) {
        timer = setInterval(() => reload(llm, true), deps.refreshMs);
        timer.unref();
      }
    },
    async stop(): Promise<void> {
      subscription?.unsubscribe();
      if (timer) clearInterval(timer);
      await reloads;
    },
  };
}
