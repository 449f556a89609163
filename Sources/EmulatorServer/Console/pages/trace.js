// One trace on one timeline: each span a row (indented under its parent) with its process, name
// and a bar placed by its start and length; failed spans in red; the function log lines written
// in the trace under the span they were written in.
import { h, table } from '../dom.js';

/** The view of `{traceId, spans, logs}` as GET .../traces/{id} answers it. */
export function traceView({ spans, logs }) {
  if (spans.length === 0) return h('p', { class: 'empty' }, 'No span of this trace is kept.');
  const start = Math.min(...spans.map((span) => span.startTimeUnixNano));
  const end = Math.max(...spans.map((span) => span.endTimeUnixNano));
  const total = Math.max(end - start, 1);
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map();
  for (const span of spans) {
    const parent = ids.has(span.parentSpanId) ? span.parentSpanId : null;
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(span);
  }
  const linesOf = new Map();
  for (const line of logs) {
    if (!linesOf.has(line.spanId)) linesOf.set(line.spanId, []);
    linesOf.get(line.spanId).push(line);
  }
  const rows = [];
  const visit = (span, depth) => {
    const offset = ((span.startTimeUnixNano - start) / total) * 100;
    const width = Math.max(((span.endTimeUnixNano - span.startTimeUnixNano) / total) * 100, 0.4);
    const milliseconds = (span.endTimeUnixNano - span.startTimeUnixNano) / 1e6;
    const attempt = span.attributes?.['functions.attempt'];
    rows.push(h('tr', { 'data-span': span.spanId, class: span.error ? 'span-failed' : null },
      h('td', { class: 'span-name', style: `padding-left: ${10 + depth * 16}px` },
        span.name, attempt !== undefined ? [' ', h('span', { class: 'badge' }, `attempt ${attempt}`)] : null,
        span.error ? h('div', { class: 'error-text' }, span.error) : null),
      h('td', {}, h('code', {}, span.service)),
      h('td', { class: 'span-timeline' },
        h('div', { class: 'span-bar', style: `margin-left: ${offset}%; width: ${width}%`, title: `${milliseconds.toFixed(2)} ms` })),
      h('td', {}, `${milliseconds.toFixed(1)} ms`)));
    for (const line of linesOf.get(span.spanId) ?? []) {
      rows.push(h('tr', { class: 'span-log', 'data-log-span': span.spanId },
        h('td', { colspan: 4, style: `padding-left: ${26 + depth * 16}px` },
          h('span', { class: `badge ${line.severity === 'ERROR' ? 'dead' : ''}` }, line.severity), ' ', line.message)));
    }
    for (const child of (children.get(span.spanId) ?? []).sort((a, b) => a.startTimeUnixNano - b.startTimeUnixNano)) visit(child, depth + 1);
  };
  for (const root of (children.get(null) ?? []).sort((a, b) => a.startTimeUnixNano - b.startTimeUnixNano)) visit(root, 0);
  return table(['Span', 'Process', 'Timeline', 'Duration'], rows);
}
