/** The first element matching a CSS selector. */
export const $ = (selector) => document.querySelector(selector);

/** A new element with the given properties and children. */
export const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

/** The message of an error answer (the gateway's `error.message`), else its status text. */
export async function errorText(response) {
  try {
    return (await response.json()).error?.message ?? response.statusText;
  } catch {
    return response.statusText;
  }
}
