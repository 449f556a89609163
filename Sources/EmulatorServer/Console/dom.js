// Small helpers to build the DOM without HTML strings: text is always text, never markup.

/** `h('button', {class: 'primary', onclick}, 'Publish')`: an element with attributes and children. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else if (name === 'value') element.value = value;
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, value);
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

/** A table with a header row; `rows` are arrays of cells (text or nodes). */
export function table(headers, rows, { empty = 'Nothing yet.', caption } = {}) {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h('table', {},
    caption ? h('caption', {}, caption) : null,
    h('thead', {}, h('tr', {}, headers.map((header) => h('th', { scope: 'col' }, header)))),
    h('tbody', {}, rows.map((row) => row instanceof Node ? row : h('tr', {}, row.map((cell) => h('td', {}, cell))))));
}

/** Fills a filter's `select` with `any` (value '') and the sorted `values`, keeping the choice
 * when it is still one of them; returns whether the choice was kept. */
export function options(select, values, any) {
  const chosen = select.value;
  replace(select, h('option', { value: '' }, any), [...values].sort().map((value) => h('option', { value }, value)));
  select.value = values.has(chosen) ? chosen : '';
  return select.value === chosen;
}

/** A section with a heading. */
export function section(title, ...children) {
  return h('section', { class: 'card' }, h('h2', {}, title), ...children);
}

/** Pretty JSON in a `<pre>`. */
export function json(value) {
  return h('pre', { class: 'json' }, JSON.stringify(value, null, 2));
}

/** An error message shown next to what caused it. */
export function errorNote(error) {
  return h('p', { class: 'error', role: 'alert' }, error?.message ?? String(error));
}

/** Whether `text` (already lower-cased) occurs anywhere in `value`'s JSON: the pages' text filters. */
export function matchesText(value, text) {
  return !text || JSON.stringify(value).toLowerCase().includes(text);
}

/** A local date and time of an RFC 3339 string or epoch milliseconds. */
export function time(value) {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value);
  return Number.isNaN(date.getTime()) ? String(value) : date.toLocaleString();
}
