// The fields of a waiting write's call as inputs an approver may change before approving: numbers
// and words as inputs, yes/no as a checkbox, lists and records as JSON. Only the fields changed
// are sent; the agent validates and checks the edited call again before it runs.
import { el } from './dom.js';

let counter = 0;

/** "PaymentMode" → "Payment mode", "due_date" → "Due date": a field's name read as words. */
export function fieldWords(name) {
  const words = name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One field's input and how to read its value back (or a message saying why it cannot be read). */
function fieldInput(name, value) {
  const id = `edit-${++counter}`;
  let input;
  let read;
  if (typeof value === 'number') {
    input = el('input', { id, type: 'number', step: 'any', value: String(value) });
    read = () =>
      input.value.trim() === '' || !Number.isFinite(Number(input.value))
        ? { error: 'must be a number' }
        : { value: Number(input.value) };
  } else if (typeof value === 'boolean') {
    input = el('input', { id, type: 'checkbox', checked: value });
    read = () => ({ value: input.checked });
  } else if (typeof value === 'string' || value === null || value === undefined) {
    input = el('input', { id, value: value ?? '' });
    read = () => ({ value: value === null && input.value === '' ? null : input.value });
  } else {
    const text = JSON.stringify(value, null, 2);
    input = el('textarea', { id, rows: Math.min(8, text.split('\n').length), spellcheck: false });
    input.value = text;
    input.setAttribute('aria-describedby', `${id}-hint`);
    read = () => {
      try {
        return { value: JSON.parse(input.value) };
      } catch {
        return { error: 'is not valid JSON' };
      }
    };
  }
  input.name = name;
  const label = el('label', { htmlFor: id, textContent: fieldWords(name) });
  const row = el('div', { className: typeof value === 'boolean' ? 'field check' : 'field' }, label, input);
  if (input.tagName === 'TEXTAREA')
    row.append(
      el('span', { id: `${id}-hint`, className: 'muted', textContent: 'a list or record, as JSON' }),
    );
  return { row, read };
}

/** Whether two JSON values are the same (key order aside). */
const same = (a, b) => {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (!same(a[key], b[key])) return false;
  return true;
};

/**
 * The edit form of a call's `args`: `element`, and `changes()` → `{ args }` with only the fields
 * changed, or `{ error }` naming the field that cannot be read.
 */
export function callEditor(args) {
  const fields = Object.entries(args ?? {}).map(([name, value]) => ({
    name,
    value,
    ...fieldInput(name, value),
  }));
  const element = el(
    'fieldset',
    { className: 'edit' },
    el('legend', { textContent: 'Change the call before approving' }),
    el('p', {
      className: 'muted',
      textContent:
        'Only the fields you change are sent; the write is validated and checked again before it runs.',
    }),
    ...fields.map((f) => f.row),
  );
  return {
    element,
    focus: () => fields[0]?.row.querySelector('input, textarea')?.focus(),
    changes() {
      const changed = {};
      for (const field of fields) {
        const read = field.read();
        if ('error' in read) return { error: `${fieldWords(field.name)} ${read.error}.` };
        if (!same(read.value, field.value)) changed[field.name] = read.value;
      }
      return { args: changed };
    },
  };
}
