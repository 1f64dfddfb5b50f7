import { fieldKey, isRecord, type TaxIdRule } from '@munim/contracts';

/** The last words of a field name that can hold a code or number (`itemCode`, `tariff_no`, `classification_id`). */
const CODE_WORDS = new Set(['code', 'number', 'no', 'num', 'id', 'ref', 'classification']);

/**
 * Fields whose schema says they hold an identifier of the rules though their name does not
 * (`itemCode` described "HSN or SAC code of the item"): the rule's name, by its words (`HSN`, `SAC`),
 * in the property's description, on a field named as a code or number. By rule name.
 */
export function describedIds(schema: unknown, rules: readonly TaxIdRule[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const names = rules.map((rule) => ({
    rule: rule.name,
    words: rule.name.split(/[^A-Za-z0-9]+/).filter((w) => w.length >= 2),
  }));
  const visit = (node: unknown, depth: number) => {
    if (!isRecord(node) || depth > 8) return;
    const props = isRecord(node.properties) ? node.properties : {};
    for (const [key, sub] of Object.entries(props)) {
      const description = isRecord(sub) && typeof sub.description === 'string' ? sub.description : '';
      const last = fieldKey(key).split('_').at(-1) ?? '';
      if (description && CODE_WORDS.has(last))
        for (const { rule, words } of names)
          if (words.some((w) => new RegExp(`\\b${w}\\b`).test(description)))
            out.set(rule, (out.get(rule) ?? new Set()).add(key));
      visit(sub, depth + 1);
    }
    if (isRecord(node.items)) visit(node.items, depth + 1);
    for (const branch of ['anyOf', 'oneOf', 'allOf'] as const)
      if (Array.isArray(node[branch])) for (const b of node[branch] as unknown[]) visit(b, depth + 1);
  };
  visit(schema, 0);
  return out;
}
