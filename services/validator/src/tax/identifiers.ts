import type { TaxIdRule, TaxRegionRule } from '@munim/contracts';

const BASE36 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * The check character of `body` by Luhn mod 36 over 0-9A-Z, as a GSTIN's fifteenth character:
 * each character's value, doubled at every second place, adds its quotient and remainder by 36.
 */
export function mod36CheckCharacter(body: string): string | undefined {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    const value = BASE36.indexOf(body[i] ?? '');
    if (value < 0) return undefined;
    const product = value * (i % 2 === 0 ? 1 : 2);
    sum += Math.floor(product / 36) + (product % 36);
  }
  return BASE36[(36 - (sum % 36)) % 36];
}

/** An identifier as it is compared: upper case, without spaces, dashes or dots. */
export const normaliseId = (value: string) => value.toUpperCase().replace(/[\s.-]/g, '');

/** Compiled patterns of the rules, bounded: they come with every call, and are few. */
const compiled = new Map<string, RegExp | null>();

function testPattern(pattern: string | undefined, text: string): boolean {
  if (pattern === undefined) return false;
  let regex = compiled.get(pattern);
  if (regex === undefined) {
    try {
      regex = new RegExp(pattern);
    } catch {
      // A pattern that does not compile matches nothing: the identifier is reported, not passed.
      regex = null;
    }
    if (compiled.size >= 1000) compiled.clear();
    compiled.set(pattern, regex);
  }
  return regex?.test(text) ?? false;
}

const matches = (rule: TaxIdRule, text: string) => rule.patterns.some((p) => testPattern(p, text));

/** `an` before a name said with a vowel sound first (`an HSN`, `an SAC`), else `a` (`a GSTIN`, `a PAN`). */
const article = (name: string) => (/^([AEIOU]|[FHLMNRSX][A-Z])/.test(name) ? 'an' : 'a');

/** What is wrong with an identifier, in words, or undefined when it is right. */
export interface IdProblem {
  /** The code of the issue: `gstin_invalid`, `pan_invalid`, `hsn_invalid`, or `<name>_invalid`. */
  code: string;
  expected: string;
  problem: string;
}

/** The issue code of an identifier: `gstin_invalid`, `pan_invalid`, `hsn_invalid` (HSN/SAC), `trn_invalid`. */
export const idCode = (rule: TaxIdRule) =>
  `${(rule.name.split('/')[0] ?? rule.name).toLowerCase().replace(/[^a-z0-9]+/g, '_')}_invalid`;

/**
 * Checks `value` against the identifier's rule: its format, the region code it holds, the
 * identifier it embeds (a GSTIN's PAN), and its check character.
 */
export function idProblem(
  rule: TaxIdRule,
  value: string,
  regions: readonly TaxRegionRule[],
  byName: ReadonlyMap<string, TaxIdRule>,
): IdProblem | undefined {
  const text = normaliseId(value);
  const code = idCode(rule);
  const expected = `a valid ${rule.name}`;
  if (!matches(rule, text)) {
    const shape = rule.format ? ` (${rule.format})` : '';
    return { code, expected, problem: `is not in the format of ${article(rule.name)} ${rule.name}${shape}` };
  }
  if (rule.regionAt && regions.length > 0) {
    const region = text.slice(rule.regionAt.start, rule.regionAt.start + rule.regionAt.length);
    if (!regions.some((r) => r.code === region))
      return { code, expected, problem: `starts with ${region}, which is not a state code in force` };
  }
  const inner = rule.embeds ? byName.get(rule.embeds.name) : undefined;
  if (rule.embeds && inner && testPattern(rule.patterns[0], text)) {
    const part = text.slice(rule.embeds.start, rule.embeds.start + rule.embeds.length);
    if (!matches(inner, part))
      return { code, expected, problem: `holds ${part}, which is not a valid ${inner.name}` };
  }
  if (rule.checksum === 'mod36') {
    const want = mod36CheckCharacter(text.slice(0, -1));
    const got = text.at(-1);
    if (want !== got)
      return {
        code,
        expected,
        problem: `has the check character ${got}, but its other characters give ${want ?? 'none'}: a character is mistyped`,
      };
  }
  return undefined;
}

/** The region code an identifier holds, when its rule says where. */
export function regionInId(rule: TaxIdRule, value: string): string | undefined {
  if (!rule.regionAt) return undefined;
  return normaliseId(value).slice(rule.regionAt.start, rule.regionAt.start + rule.regionAt.length);
}
