import { PlannedCallSchema } from '@munim/contracts';
import type { Database } from '@munim/db';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Intent, IntentSource } from './intents.ts';

const PhrasesSchema = z.array(z.string());
const FlowSchema = z.array(
  PlannedCallSchema.partial({ description: true, purpose: true }).extend({
    args: z.record(z.string(), z.unknown()).default({}),
  }),
);

/** Active intents from the `intents` table; a row with a malformed flow is skipped, not fatal. */
export function dbIntentSource(
  db: Kysely<Database>,
  onSkip?: (name: string, reason: string) => void,
): IntentSource {
  return {
    async load() {
      const rows = await db
        .selectFrom('intents')
        .select(['id', 'name', 'module_id', 'description', 'training_phrases', 'resolution_flow'])
        .where('is_active', '=', true)
        .execute();
      const intents: Intent[] = [];
      for (const row of rows) {
        const phrases = PhrasesSchema.safeParse(row.training_phrases);
        const flow = FlowSchema.safeParse(row.resolution_flow);
        if (!phrases.success || !flow.success) {
          onSkip?.(row.name, 'training_phrases or resolution_flow malformed');
          continue;
        }
        intents.push({
          id: String(row.id),
          name: row.name,
          moduleId: row.module_id ?? null,
          description: row.description ?? null,
          trainingPhrases: phrases.data,
          resolutionFlow: flow.data.map((s) => ({
            tool: s.tool,
            args: s.args,
            description: s.description ?? s.tool,
            purpose: s.purpose ?? '',
          })),
        });
      }
      return intents;
    },
  };
}
