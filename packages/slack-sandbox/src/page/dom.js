/**
 * Builds DOM nodes. Strings always become text nodes: message content never reaches the page as
 * HTML (no innerHTML anywhere), so `<script>` in a message is only ever text.
 */

/**
 * @template {keyof HTMLElementTagNameMap} Tag
 * @param {Tag} tag
 * @param {Record<string, unknown>} [props] attributes; `class`, `text`, `dataset`, `style` (an object) and `on<event>` handlers are special
 * @param {...unknown} children nodes, strings, arrays, or nothing
 * @returns {HTMLElementTagNameMap[Tag]}
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.className = String(value);
    else if (key === 'text') element.textContent = String(value);
    else if (key === 'dataset') Object.assign(element.dataset, value);
    // Styles through the CSSOM: the page's CSP forbids inline style attributes.
    else if (key === 'style' && typeof value === 'object') {
      for (const [property, v] of Object.entries(value))
        element.style.setProperty(property, String(v));
    } else if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2).toLowerCase(), /** @type {EventListener} */ (value));
    } else if (value === true) element.setAttribute(key, '');
    else element.setAttribute(key, String(value));
  }
  append(element, children);
  return element;
}

/** @param {ParentNode} parent @param {unknown[]} children */
export function append(parent, children) {
  for (const child of children.flat(Number.POSITIVE_INFINITY)) {
    if (child === undefined || child === null || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** @param {Element} element @param {...unknown} children */
export function replaceChildren(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** Initials for an avatar: "Alice Archer" → "AA". @param {string} name */
export function initials(name) {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return parts
    .slice(0, 2)
    .map((p) => p[0]?.toUpperCase() ?? '')
    .join('');
}

const SVG = 'http://www.w3.org/2000/svg';
const ICONS = {
  thread: 'M4 4h12a2 2 0 0 1 2 2v7a2 2 0 0 1-2 2H9l-4 3v-3H4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z',
  eye: 'M1.5 10s3-6 8.5-6 8.5 6 8.5 6-3 6-8.5 6S1.5 10 1.5 10zM10 7.5a2.5 2.5 0 1 0 0 5 2.5 2.5 0 0 0 0-5z',
};

/** A small line icon. @param {'thread' | 'eye'} name */
export function icon(name) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 20 20');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', 'icon');
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}
