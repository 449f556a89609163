// Functions: each deployed function with its trigger and instances, and what the event log says
// of it over a recent window: events, attempts, successes, failed attempts, retries, dead letters,
// the median and 99th percentile duration of its attempts, and its latest failed attempts.
import { get, emulatorPath } from '../api.js';
import { h, replace, section, table, errorNote, time } from '../dom.js';
import { kindOf, instanceCount } from './overview.js';

const windows = [['300', 'last 5 minutes'], ['3600', 'last hour'], ['86400', 'last day'], ['31536000', 'all']];

export default {
  id: 'functions',
  title: 'Functions',
  areas: ['events', 'functions'],
  async render(container) {
    const windowSelect = h('select', { id: 'stats-window', name: 'window' }, windows.map(([value, label]) => h('option', { value }, label)));
    windowSelect.value = '3600';
    const statsBox = h('div', { id: 'function-stats' });
    const errorsBox = h('div', { id: 'function-errors' });
    windowSelect.addEventListener('change', () => refresh());
    replace(container,
      section('Deliveries', h('form', { class: 'inline', onsubmit: (event) => event.preventDefault() },
        h('label', { for: 'stats-window' }, 'Over the'), windowSelect), statsBox),
      section('Latest errors', errorsBox));

    async function refresh() {
      try {
        const [description, stats] = await Promise.all([get(`${emulatorPath}/functions`), get(`${emulatorPath}/functions:stats?window=${windowSelect.value}`)]);
        const byName = new Map(stats.functions.map((entry) => [entry.function, entry]));
        const names = [...new Set([...Object.keys(description.endpoints ?? {}), ...byName.keys()])].sort();
        const ms = (value) => (value === null || value === undefined ? '–' : `${value < 10 ? value.toFixed(1) : Math.round(value)}`);
        replace(statsBox, table(['Function', 'Kind', 'Instances', 'Events', 'Attempts', 'Succeeded', 'Failed attempts', 'Retrying', 'Dead letters', 'p50 ms', 'p99 ms'],
          names.map((name) => {
            const entry = byName.get(name) ?? {};
            const runtime = description.functions?.[name] ?? {};
            const endpoint = description.endpoints?.[name];
            return h('tr', { 'data-function': name },
              h('td', {}, h('code', {}, name), endpoint ? '' : h('span', { class: 'muted' }, ' (not deployed)')),
              h('td', {}, kindOf(endpoint, runtime)),
              h('td', {}, String(instanceCount(runtime))),
              h('td', {}, String(entry.events ?? 0)), h('td', {}, String(entry.attempts ?? 0)),
              h('td', { class: 'ok' }, String(entry.succeeded ?? 0)),
              h('td', { class: entry.failedAttempts ? 'warn' : '' }, String(entry.failedAttempts ?? 0)),
              h('td', {}, String(entry.retrying ?? 0)),
              h('td', { class: entry.deadLettered ? 'error-text' : '' }, entry.deadLettered ? h('a', { href: '#/events' }, String(entry.deadLettered)) : '0'),
              h('td', {}, ms(entry.p50Ms)), h('td', {}, ms(entry.p99Ms)));
          }), { empty: 'No functions are deployed, and none has had events in this window.' }));
        const failures = stats.functions.flatMap((entry) => entry.lastErrors.map((failure) => ({ ...failure, function: entry.function })))
          .sort((a, b) => b.time.localeCompare(a.time));
        replace(errorsBox, table(['Time', 'Function', 'Event', 'Error'], failures.map((failure) =>
          [time(failure.time), failure.function, h('code', {}, failure.eventId), h('span', { class: 'error-text' }, failure.error)]),
        { empty: 'No errors in this window.' }));
      } catch (error) { replace(statsBox, errorNote(error)); }
    }
    await refresh();
    return { refresh };
  },
};
