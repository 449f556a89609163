// Realtime Database: a live tree of one instance at a path, with inline add, edit and delete,
// JSON import and export, and a query box. It reads the REST streaming protocol (put and patch
// events) with the owner credential, so security rules never hide data from the console.
import { call, info, openStream } from '../api.js';
import { h, replace, section, json, errorNote } from '../dom.js';

const segments = (path) => path.split('/').filter(Boolean);
const pathOf = (parts) => `/${parts.join('/')}`;
const restURL = (instance, path, query = '') => `${pathOf(segments(path).map(encodeURIComponent))}.json?ns=${encodeURIComponent(instance)}${query}`;

/** `root` with the value at `parts` replaced (`null` deletes), as a `put` event says. */
function put(root, parts, value) {
  if (parts.length === 0) return value;
  // Without a prototype, a key such as `__proto__` or `constructor` is data like any other.
  const copy = Object.assign(Object.create(null), root && typeof root === 'object' ? root : {});
  const child = put(copy[parts[0]], parts.slice(1), value);
  if (child === null || child === undefined) delete copy[parts[0]]; else copy[parts[0]] = child;
  return Object.keys(copy).length ? copy : null;
}

/** Reads a server-sent-event stream from a fetch response, calling `onEvent(name, data)`. */
async function readEvents(response, onEvent, signal) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  while (!signal.aborted) {
    const { value, done } = await reader.read();
    if (done) return;
    pending += decoder.decode(value, { stream: true });
    let end;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const frame = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let name = '';
      let data = '';
      for (const line of frame.split('\n')) {
        if (line.startsWith('event: ')) name = line.slice(7);
        if (line.startsWith('data: ')) data += line.slice(6);
      }
      if (name) onEvent(name, data);
    }
  }
}

export default {
  id: 'database',
  title: 'Realtime Database',
  areas: [],
  async render(container, query) {
    const instance = h('select', { id: 'db-instance', name: 'instance' }, info.databaseInstances.map((name) => h('option', { value: name }, name)));
    instance.value = query.get('ns') ?? info.databaseInstance;
    const path = h('input', { id: 'db-path', name: 'path', size: 40, value: query.get('path') ?? '/' });
    const status = h('span', { class: 'hint', 'aria-live': 'polite' });
    const treeBox = h('div', { id: 'db-tree', class: 'tree' });
    const actionResult = h('div', { 'aria-live': 'polite' });
    let data = null;
    let stream = null;
    const expanded = new Set(['']);

    const go = h('form', { class: 'inline', onsubmit: (event) => { event.preventDefault(); listen(); } },
      h('label', { for: 'db-instance' }, 'Instance'), instance, h('label', { for: 'db-path' }, 'Path'), path,
      h('button', { type: 'submit' }, 'Show'), status);

    // The query box: the REST query parameters, answered once and again after every change.
    const orderBy = h('input', { id: 'q-order', name: 'orderBy', size: 12, placeholder: '$key, $value or a child' });
    const bound = h('select', { id: 'q-bound', name: 'bound' }, ['limitToFirst', 'limitToLast', 'startAt', 'endAt', 'equalTo'].map((name) => h('option', { value: name }, name)));
    const boundValue = h('input', { id: 'q-value', name: 'value', size: 12, placeholder: '10 or "text"' });
    const queryResult = h('div', { id: 'query-result' });
    let activeQuery = null;
    const queryForm = h('form', { class: 'inline', onsubmit: (event) => {
      event.preventDefault();
      const parts = [];
      if (orderBy.value.trim()) parts.push(`orderBy=${encodeURIComponent(JSON.stringify(orderBy.value.trim()))}`);
      if (boundValue.value.trim()) parts.push(`${bound.value}=${encodeURIComponent(boundValue.value.trim())}`);
      activeQuery = parts.length ? `&${parts.join('&')}` : null;
      runQuery();
    } }, h('label', { for: 'q-order' }, 'orderBy'), orderBy, h('label', { for: 'q-bound', class: 'visually-hidden' }, 'Bound'), bound,
    h('label', { for: 'q-value', class: 'visually-hidden' }, 'Bound value'), boundValue, h('button', { type: 'submit' }, 'Query'),
    h('button', { type: 'button', onclick: () => { activeQuery = null; replace(queryResult); } }, 'Clear'));

    async function runQuery() {
      if (!activeQuery) return;
      try {
        const { body } = await call('GET', restURL(instance.value, path.value, activeQuery));
        replace(queryResult, json(body));
      } catch (error) { replace(queryResult, errorNote(error)); }
    }

    // Import and export of the value at the path.
    const importText = h('textarea', { id: 'db-import', rows: 5, spellcheck: 'false', 'aria-label': 'JSON to import at the path' });
    const importResult = h('div', { 'aria-live': 'polite' });
    async function importJSON(method) {
      let value;
      try { value = JSON.parse(importText.value); } catch (error) { replace(importResult, errorNote(`Not JSON: ${error.message}`)); return; }
      try {
        await call(method, restURL(instance.value, path.value), { body: value });
        replace(importResult, h('p', { class: 'ok' }, method === 'PUT' ? 'Replaced.' : 'Merged.'));
      } catch (error) { replace(importResult, errorNote(error)); }
    }
    const exportLink = h('a', { id: 'db-export', href: '#', download: 'export.json', onclick: () => {
      exportLink.href = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }));
      exportLink.download = `${instance.value}${segments(path.value).join('-') ? `-${segments(path.value).join('-')}` : ''}.json`;
    } }, 'Export this value as JSON');

    replace(container,
      section('Data', go, treeBox, actionResult),
      section('Query', queryForm, queryResult),
      section('Import and export', h('p', { class: 'hint' }, 'Import writes at the path above, through the same REST call (and triggers) as any client.'),
        importText, h('div', { class: 'inline' },
          h('button', { type: 'button', onclick: () => importJSON('PUT') }, 'Replace with this JSON'),
          h('button', { type: 'button', onclick: () => importJSON('PATCH') }, 'Merge this JSON')),
        importResult, h('p', {}, exportLink)));

    async function write(method, parts, value) {
      try {
        await call(method, restURL(instance.value, pathOf([...segments(path.value), ...parts])), value === undefined ? {} : { body: value });
        replace(actionResult);
      } catch (error) { replace(actionResult, errorNote(error)); }
    }

    function parseValue(text) {
      try { return JSON.parse(text); } catch { return text; }
    }

    function node(key, value, parts) {
      const id = parts.join('/');
      const isObject = value && typeof value === 'object';
      const label = h('span', { class: 'key' }, key);
      const editor = h('span', { class: 'actions' });
      const edit = () => {
        const input = h('input', { 'aria-label': `New value of ${id || '/'}`, 'data-edit': id, value: JSON.stringify(value), size: 30 });
        replace(editor, h('form', { class: 'inline', onsubmit: (event) => { event.preventDefault(); write('PUT', parts, parseValue(input.value)); } },
          input, h('button', { type: 'submit' }, 'Save'), h('button', { type: 'button', onclick: draw }, 'Cancel')));
        input.focus();
      };
      const add = () => {
        const childKey = h('input', { 'aria-label': `New child key of ${id || '/'}`, size: 12, placeholder: 'key' });
        const childValue = h('input', { 'aria-label': `New child value of ${id || '/'}`, size: 20, placeholder: 'value (JSON)' });
        replace(editor, h('form', { class: 'inline', onsubmit: (event) => { event.preventDefault(); write('PUT', [...parts, childKey.value.trim()], parseValue(childValue.value)); } },
          childKey, childValue, h('button', { type: 'submit' }, 'Add'), h('button', { type: 'button', onclick: draw }, 'Cancel')));
        childKey.focus();
      };
      replace(editor,
        h('button', { class: 'link', 'data-action': 'edit', 'aria-label': `Edit ${id || '/'}`, onclick: edit }, 'edit'),
        isObject || value === null ? h('button', { class: 'link', 'aria-label': `Add a child to ${id || '/'}`, onclick: add }, 'add') : null,
        value !== null ? h('button', { class: 'link danger', 'aria-label': `Delete ${id || '/'}`, onclick: () => {
          // A whole subtree goes only when confirmed.
          if (isObject && !window.confirm(`Delete ${id || 'everything'} and its ${Object.keys(value).length} children?`)) return;
          write('DELETE', parts);
        } }, 'delete') : null);
      if (!isObject) {
        return h('li', { 'data-path': id }, label, ': ', h('code', { class: `value ${typeof value}` }, JSON.stringify(value)), ' ', editor);
      }
      const open = expanded.has(id);
      const toggle = h('button', { class: 'toggle', 'aria-expanded': String(open), 'aria-label': `${open ? 'Collapse' : 'Expand'} ${id || '/'}`,
        onclick: () => { if (expanded.has(id)) expanded.delete(id); else expanded.add(id); draw(); } }, open ? '▾' : '▸');
      const keys = Object.keys(value).sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
      return h('li', { 'data-path': id }, toggle, label, h('span', { class: 'muted' }, ` {${keys.length}}`), ' ', editor,
        open ? h('ul', {}, keys.map((child) => node(child, value[child], [...parts, child]))) : null);
    }

    function draw() {
      const name = segments(path.value).at(-1) ?? instance.value;
      replace(treeBox, data === null
        ? h('div', {}, h('p', { class: 'empty' }, 'No data at this path.'), h('ul', { class: 'root' }, node(name, null, [])))
        : h('ul', { class: 'root' }, node(name, data, [])));
    }

    async function listen() {
      stream?.abort();
      const controller = new AbortController();
      stream = controller;
      data = null;
      replace(status, 'connecting…');
      try {
        const response = await openStream(restURL(instance.value, path.value), controller.signal);
        replace(status, 'live');
        await readEvents(response, (name, text) => {
          if (name !== 'put' && name !== 'patch') return;
          const event = JSON.parse(text);
          const parts = segments(event.path);
          if (name === 'put') data = put(data, parts, event.data);
          else for (const [key, value] of Object.entries(event.data ?? {})) data = put(data, [...parts, ...segments(key)], value);
          draw();
          runQuery();
        }, controller.signal);
      } catch (error) {
        if (controller.signal.aborted) return;
        replace(status, errorNote(error));
      }
    }

    draw();
    listen();
    return { stop: () => stream?.abort() };
  },
};
