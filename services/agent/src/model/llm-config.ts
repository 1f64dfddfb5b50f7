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
export type ClientSettings = Pick<LlmConfig, 'timeoutMs' | 'azureApiVersion' | 'systemRole' | 'maxRetries'>;

/** The model in use: the client, the row it came from (null: the environment) and the row's defaults. */
interface Current {
  llm: Llm;
  configId: number | null;
  temperature: number | null;
  maxTokens: number | null;
}

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

/** Which default row, as of which edit: what the timed check compares; null when there is none. */
const versionOf = (row: Pick<ConfigRow, 'id' | 'updated_at'> | undefined): string | null =>
  row ? `${row.id}@${new Date(row.updated_at).toISOString()}` : null;

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
 * restart: the default `llm_configs` row when there is one, else the environment's model. After each
 * call it adds the usage to the row's totals.
 */
export class SwitchableLlm implements Llm {
  #current: Current;
  readonly #fallback: Llm | null;
  readonly #db: Kysely<Database>;
  readonly #log: Logger;

  constructor(current: Current, fallback: Llm | null, db: Kysely<Database>, log: Logger) {
    this.#current = current;
    this.#fallback = fallback;
    this.#db = db;
    this.#log = log;
  }

  /** `<provider>/<model>` of the model in use. */
  get label(): string {
    return this.#current.llm.label;
  }

  /** The name of the model in use. */
  get model(): string {
    return this.#current.llm.model;
  }

  /** The `llm_configs` id in use, or null for the environment's model. */
  get configId(): number | null {
    return this.#current.configId;
  }

  /** Uses this model from now on; calls already running finish on the old one. */
  use(next: Current | null): void {
    if (next) this.#current = next;
    else if (this.#fallback)
      this.#current = { llm: this.#fallback, configId: null, temperature: null, maxTokens: null };
    else return;
    this.#log.info({ model: this.label, configId: this.configId }, 'model in use');
  }

  async turn(input: Parameters<Llm['turn']>[0]) {
    const current = this.#current;
    const turn = await current.llm.turn({
      ...input,
      // The row's max_tokens caps every tier's budget; its temperature is the default.
      maxTokens: current.maxTokens ? Math.min(input.maxTokens, current.maxTokens) : input.maxTokens,
      ...(input.temperature === undefined && current.temperature !== null
        ? { temperature: current.temperature }
        : {}),
    });
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
  /** How endpoint hosts are resolved before use; the system resolver unless a test gives one. */
  resolve?: Resolver;
}

/** The version of the default row, read alone (undefined: unreadable). */
async function defaultVersion(db: Kysely<Database>, log: Logger): Promise<string | null | undefined> {
  try {
    return versionOf(await defaults(db).select(['id', 'updated_at']).executeTakeFirst());
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
  /** The default row's model (null: none, or unusable) and the row's version (undefined: unreadable). */
  const load = async (): Promise<{ model: Current | null; version: string | null | undefined }> => {
    let row: ConfigRow | undefined;
    try {
      row = await defaultRow(db);
      if (!row) return { model: null, version: versionOf(row) };
      // Rows are written through the admin API: their endpoint is checked again where it is used.
      const problem = await endpointProblem(row.endpoint, deps.allowlist, deps.resolve);
      if (problem) throw new LlmConfigError(`model configuration ${row.id}: endpoint ${problem}`);
      return {
        model: clientOf(row, deps.secretKey, deps.settings, deps.allowlist ?? EMPTY_ALLOWLIST),
        version: versionOf(row),
      };
    } catch (error) {
      // A broken row must not take the agent down: keep answering with the environment's model.
      log.warn({ err: error }, 'default model configuration unusable; using the environment model');
      return { model: null, version: row ? versionOf(row) : undefined };
    }
  };
  const initial = await load();
  /** The version of the default row the model in use was loaded from (undefined: unknown). */
  let version = initial.version;
  const start =
    initial.model ?? (fallback && { llm: fallback, configId: null, temperature: null, maxTokens: null });
  const llm = start ? new SwitchableLlm(start, fallback, db, log) : null;
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
