import { Marked } from '/vendor/marked.esm.js';
import DOMPurify from '/vendor/purify.es.mjs';

const CARD_KINDS = new Set(['params', 'clarification']);

// `params` and `clarification` fences become placeholders; their JSON is turned into cards with
// DOM APIs afterwards, so no model-written HTML is ever interpreted.
const marked = new Marked({
  gfm: true,
  renderer: {
    code({ text, lang }) {
      if (CARD_KINDS.has(lang)) {
        const slot = document.createElement('div');
        slot.className = 'card-slot';
        slot.dataset.kind = lang;
        slot.dataset.json = text;
        return slot.outerHTML;
      }
      return false;
    },
  },
});

/** Renders model markdown (tables included) into `target`, sanitised, with cards built by `cards`. */
export function renderMarkdown(target, markdown, cards) {
  const html = marked.parse(markdown);
  target.innerHTML = DOMPurify.sanitize(html, { ADD_ATTR: ['data-kind', 'data-json'] });
  // A table wider than the chat scrolls sideways in a wrapper of its own, not the card or the page.
  for (const table of target.querySelectorAll('table')) {
    const wrapper = document.createElement('div');
    wrapper.className = 'table-scroll';
    table.replaceWith(wrapper);
    wrapper.append(table);
  }
  for (const slot of target.querySelectorAll('.card-slot')) {
    let spec = null;
    try {
      spec = JSON.parse(slot.dataset.json ?? '');
    } catch {
      // A block still streaming in is not JSON yet; it is rendered once complete.
    }
    const card = spec && typeof spec === 'object' ? cards[slot.dataset.kind]?.(spec) : null;
    if (card) slot.replaceWith(card);
    else slot.remove();
  }
}
