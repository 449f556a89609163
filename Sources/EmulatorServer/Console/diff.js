// A side-by-side line diff (longest common subsequence), for comparing template versions.
import { h } from './dom.js';

/** JSON with object keys sorted, so that equal values print the same. */
export function stableJSON(value) {
  const sort = (node) => Array.isArray(node) ? node.map(sort)
    : node && typeof node === 'object' ? Object.fromEntries(Object.keys(node).sort().map((key) => [key, sort(node[key])])) : node;
  return JSON.stringify(sort(value), null, 2);
}

/** The aligned rows of a line diff: `{left, right, kind}` with kind same, removed, added or changed. */
export function diffLines(leftText, rightText) {
  const a = leftText.split('\n');
  const b = rightText.split('\n');
  const n = a.length;
  const m = b.length;
  const lengths = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  const rows = [];
  let i = 0;
  let j = 0;
  let removed = [];
  let added = [];
  const flush = () => {
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const left = removed[k];
      const right = added[k];
      rows.push({ left, right, kind: left !== undefined && right !== undefined ? 'changed' : left !== undefined ? 'removed' : 'added' });
    }
    removed = [];
    added = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      flush();
      rows.push({ left: a[i], right: b[j], kind: 'same' });
      i++;
      j++;
    } else if (j < m && (i === n || lengths[i][j + 1] >= lengths[i + 1][j])) {
      added.push(b[j++]);
    } else {
      removed.push(a[i++]);
    }
  }
  flush();
  return rows;
}

/** The diff as a two-column table. */
export function diffTable(leftTitle, rightTitle, rows) {
  const changes = rows.filter((row) => row.kind !== 'same').length;
  return h('div', { class: 'diff' },
    h('p', { class: 'hint', role: 'status' }, changes ? `${changes} changed line${changes === 1 ? '' : 's'}.` : 'The two are the same.'),
    h('table', { class: 'diff-table' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, leftTitle), h('th', { scope: 'col' }, rightTitle))),
      h('tbody', {}, rows.map((row) => h('tr', { class: row.kind },
        h('td', { class: row.left === undefined ? 'blank' : '' }, h('code', {}, row.left ?? '')),
        h('td', { class: row.right === undefined ? 'blank' : '' }, h('code', {}, row.right ?? '')))))));
}
