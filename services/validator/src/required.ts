import { isRecord } from '@munim/contracts';

type Schema = Record<string, unknown>;

/** Deeper than this a `$ref` chain is taken for a loop. */
const MAX_REFS = 16;

/** The schema a local `$ref` (`#/definitions/Line`, `#/$defs/Line`, `#/properties/a`) points to, or the node itself. */
export function deref(node: unknown, root: Schema): Schema | undefined {
  let current = node;
  for (let hops = 0; hops < MAX_REFS; hops++) {
    if (!isRecord(current)) return undefined;
    const ref = current.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) return current;
    current = ref
      .slice(1)
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((at, segment) => (isRecord(at) ? at[segment] : undefined), root);
  }
  return undefined;
}

const BRANCHES = ['allOf', 'anyOf', 'oneOf'] as const;

function branches(node: Schema, key: (typeof BRANCHES)[number], root: Schema): Schema[] {
  const list = node[key];
  if (!Array.isArray(list)) return [];
  return list.map((b) => deref(b, root)).filter((b): b is Schema => b !== undefined);
}

/**
 * The properties a schema declares, its own and those of its `allOf`/`anyOf`/`oneOf` branches
 * (each by its first declaration); undefined when it declares none anywhere.
 */
export function propertiesOf(schema: unknown, root: Schema, depth = 0): Schema | undefined {
  const node = deref(schema, root);
  if (!node || depth > MAX_REFS) return undefined;
  let out: Schema | undefined = isRecord(node.properties) ? { ...node.properties } : undefined;
  for (const key of BRANCHES)
    for (const branch of branches(node, key, root)) {
      const inner = propertiesOf(branch, root, depth + 1);
      if (inner) out = { ...inner, ...out };
    }
  return out;
}

/**
 * The names a schema requires whatever the call: its own `required`, an `allOf` branch's, and
 * those every `anyOf`/`oneOf` branch requires (a name only some branches require is a choice the
 * schema leaves to the caller).
 */
export function requiredNames(schema: unknown, root: Schema, depth = 0): Set<string> {
  const node = deref(schema, root);
  const out = new Set<string>();
  if (!node || depth > MAX_REFS) return out;
  if (Array.isArray(node.required))
    for (const name of node.required) if (typeof name === 'string') out.add(name);
  for (const branch of branches(node, 'allOf', root))
    for (const name of requiredNames(branch, root, depth + 1)) out.add(name);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const each = branches(node, key, root).map((b) => requiredNames(b, root, depth + 1));
    const [first, ...rest] = each;
    for (const name of first ?? []) if (rest.every((set) => set.has(name))) out.add(name);
  }
  return out;
}

/**
 * Whether a schema requires the field at a dotted path (`payment.account_ref`): every step is
 * required by the schema of the object it sits in.
 */
export function isRequiredPath(root: Schema, path: string): boolean {
  let node: unknown = root;
  for (const part of path.split('.')) {
    if (!requiredNames(node, root).has(part)) return false;
    node = propertiesOf(node, root)?.[part];
  }
  return true;
}
