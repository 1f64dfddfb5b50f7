import {
  type ConfirmationTier,
  classifyTool,
  MAKING_VERBS,
  type ToolDefinition,
  type VerbClass,
} from '@munim/contracts';
import type { Concept } from './fields.ts';

/**
 * What a write needs beyond its JSON Schema, for the calls whose name has one of
 * its verbs and one of its nouns. Fields are concepts ({@link Concept}), found in each tool's schema
 * by meaning; a rule never demands a field the schema cannot accept.
 */
export interface WriteRuleSpec {
  /** What the rule is about, in words. */
  name: string;
  /** Of the rules of one group only the first that matches a call applies; rules without a group always do. */
  group?: 'record';
  /** Verb classes the rule is for. */
  classes?: readonly VerbClass[];
  /** Verbs the rule is for, whatever their class. */
  verbs?: readonly string[];
  /** Verbs the rule is never for. */
  except?: readonly string[];
  /** Nouns (singular; `credit_note` for two words in a row), one of which the name must hold; absent: any. */
  nouns?: readonly string[];
  /** Fields that must be present and neither null nor empty. */
  required?: readonly Concept[];
  /** Fields that must be non-empty arrays. */
  nonEmpty?: readonly Concept[];
  /** Amounts that must be greater than zero when present. */
  positive?: readonly Concept[];
  /** The lines are a journal's: at least two, and debits equal credits. */
  balanced?: boolean;
}

/** Verbs that send a record to someone. */
export const SENDING_VERBS: readonly string[] = ['send', 'resend', 'email'];

/** Documents with a party and lines (invoices, bills, credit notes; their siblings). */
export const DOCUMENT_NOUNS: readonly string[] = [
  'invoice',
  'bill',
  'credit_note',
  'debit_note',
  'quote',
  'quotation',
  'estimate',
  'sales_order',
  'purchase_order',
];

const MONEY_MOVE = {
  required: ['account', 'amount'],
  nonEmpty: ['applications'],
  positive: ['amount'],
} as const;
const TRANSFER = { required: ['fromAccount', 'toAccount', 'amount'], positive: ['amount'] } as const;

/** The write rules, in the order their fields are reported, matched to tools by meaning. */
export const WRITE_RULES: readonly WriteRuleSpec[] = [
  { name: 'a change to a record names it', classes: ['edit', 'destructive'], required: ['recordId'] },
  {
    name: 'a journal balances',
    group: 'record',
    nouns: ['journal'],
    classes: ['create', 'edit'],
    except: SENDING_VERBS,
    nonEmpty: ['lines'],
    balanced: true,
  },
  { name: 'a transfer moves money between accounts', group: 'record', verbs: ['transfer'], ...TRANSFER },
  {
    name: 'a transfer is recorded',
    group: 'record',
    nouns: ['transfer'],
    verbs: MAKING_VERBS,
    ...TRANSFER,
  },
  { name: 'paying moves money', group: 'record', verbs: ['pay'], ...MONEY_MOVE },
  {
    name: 'a payment is recorded',
    group: 'record',
    nouns: ['payment'],
    verbs: [...MAKING_VERBS, 'receive'],
    ...MONEY_MOVE,
  },
  {
    name: 'a changed payment keeps an amount',
    group: 'record',
    nouns: ['payment'],
    classes: ['edit'],
    positive: ['amount'],
  },
  {
    name: 'a document has a party and lines',
    group: 'record',
    nouns: DOCUMENT_NOUNS,
    verbs: MAKING_VERBS,
    required: ['contact'],
    nonEmpty: ['lines'],
  },
  { name: 'a sent record has an address', verbs: SENDING_VERBS, required: ['email'] },
];

/**
 * The confirmation tier of a call (see docs/mcp-servers.md, Confirmation tiers): 0 for reads; the
 * registry's classification when it sent one, else the contracts' classification by verb and
 * annotations.
 */
export function confirmationTier(
  definition: Pick<ToolDefinition, 'name' | 'isWrite' | 'annotations' | 'access' | 'description'>,
): ConfirmationTier {
  if (!definition.isWrite) return 0;
  if (definition.access) return definition.access.tier;
  const access = classifyTool(definition.name, definition.annotations, {
    description: definition.description,
  });
  if (access.kind === 'write') return access.tier;
  // Marked a write by the registry though its name reads: confirm it anyway.
  return definition.annotations?.destructiveHint === true ? 3 : 1;
}
