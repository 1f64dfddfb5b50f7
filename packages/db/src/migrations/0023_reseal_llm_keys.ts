import { sql } from 'kysely';
import type { Migration } from 'kysely/migration';
import { sealLlmKey } from '../llm-config-keys.ts';
import { decryptSecret, isUnboundSecret, parseSecretKey, SecretKeyError } from '../secrets.ts';
import type { MigrationDb } from './types.ts';

/**
 * Model API keys stored before keys were bound to their rows (`v1`, no associated data) are sealed
 * again, bound to their row, provider and endpoint origin; from here on `openLlmKey` refuses `v1`.
 * It needs `LLM_CONFIG_KEY` (the gateway's and agent's). Without it, or when it does not open a legacy
 * key, the migration fails naming the rows and what to do, changing nothing: dropping the keys
 * would lose them, and leaving them would keep keys that no row binds.
 */
export function resealLlmKeys(llmConfigKey: string | undefined): Migration {
  return {
    async up(db: MigrationDb): Promise<void> {
      const rows = (
        await sql<{ id: string; provider: string; endpoint: string; api_key_encrypted: string }>`
          select id::text, provider, endpoint, api_key_encrypted from llm_configs
          where api_key_encrypted like 'v1:%' order by id for update`.execute(db)
      ).rows.filter((row) => isUnboundSecret(row.api_key_encrypted));
      if (rows.length === 0) return;
      const ids = rows.map((row) => row.id).join(', ');
      if (!llmConfigKey) {
        throw new Error(
          `llm_configs rows ${ids} hold model API keys stored without associated data; set LLM_CONFIG_KEY ` +
            '(the gateway’s and agent’s) for the migration so it can bind them to their rows',
        );
      }
      const secretKey = parseKey(llmConfigKey);
      const sealed: { id: string; stored: string }[] = [];
      const unreadable: string[] = [];
      for (const row of rows) {
        try {
          const apiKey = decryptSecret(secretKey, row.api_key_encrypted);
          sealed.push({ id: row.id, stored: sealLlmKey(secretKey, row, apiKey) });
        } catch (error) {
          if (!(error instanceof SecretKeyError)) throw error;
          unreadable.push(row.id);
        }
      }
      if (unreadable.length > 0) {
        const which = unreadable.join(', ');
        throw new Error(
          `LLM_CONFIG_KEY does not open the model API keys of llm_configs rows ${which}; run the migration ` +
            'with the key they were written with, or clear them ' +
            `(update llm_configs set api_key_encrypted = null where id in (${which})) and send them again`,
        );
      }
      for (const { id, stored } of sealed) {
        await sql`update llm_configs set api_key_encrypted = ${stored} where id = ${id}::bigint`.execute(db);
      }
    },
  };
}

function parseKey(text: string): Buffer {
  try {
    return parseSecretKey(text);
  } catch (error) {
    throw new Error(`LLM_CONFIG_KEY ${error instanceof Error ? error.message : String(error)}`);
  }
}
