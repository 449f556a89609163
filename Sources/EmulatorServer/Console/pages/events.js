// Events: the event log newest first, filterable; each event's data, deliveries and trace (the
// write that caused it, each attempt, the function's invocations, log lines and Admin calls on
// one timeline); dead letters with Replay; and a form that sends a test event to a function.
import { call, get, emulatorPath } from '../api.js';
import { h, replace, section, table, json, errorNote, time, matchesText, options } from '../dom.js';
import { traceView } from './trace.js';

export default {
  id: 'events',
  title: 'Events',
  areas: ['events', 'functions'],
  async render(container) {
    const filters = {
      type: h('select', { id: 'filter-type', name: 'type' }),
      function: h('select', { id: 'filter-function', name: 'function' }),
      status: h('select', { id: 'filter-status', name: 'status' },
        ['', 'succeeded', 'retrying', 'dead', 'pending'].map((status) => h('option', { value: status }, status || 'any status'))),
      text: h('input', { id: 'filter-text', name: 'text', type: 'search', placeholder: 'id, subject, error…' }),
    };
    const logBox = h('div', { id: 'event-log' });
    const deadBox = h('div', { id: 'dead-letters' });
    const triggerBox = h('div');
    const open = new Set();
    let events = [];

    for (const control of Object.values(filters)) control.addEventListener('input', drawLog);
    replace(container,
      section('Dead letters', deadBox),
      section('Event log',
        h('form', { class: 'filters', role: 'search', onsubmit: (event) => event.preventDefault() },
          h('label', { for: 'filter-type' }, 'Type'), filters.type,
          h('label', { for: 'filter-function' }, 'Function'), filters.function,
          h('label', { for: 'filter-status' }, 'Status'), filters.status,
          h('label', { for: 'filter-text' }, 'Text'), filters.text),
        logBox),
      section('Send a test event', triggerBox));

    // A trace's timeline, kept while its event stays open so that redraws do not fetch it again
    // unless the event changed.
    const traces = new Map();
    function traceBox(traceId) {
      const known = traces.get(traceId);
      if (known) return known;
      const box = h('div', { class: 'trace', 'data-trace': traceId }, h('p', { class: 'hint' }, 'Loading the trace…'));
      traces.set(traceId, box);
      get(`${emulatorPath}/traces/${traceId}`)
        .then((trace) => replace(box, traceView(trace)))
        .catch((error) => replace(box, errorNote(error)));
      return box;
    }

    function statusOf(delivery) {
      return delivery.status.startsWith('dead-letter') ? 'dead' : delivery.status;
    }

    function drawLog() {
      const text = filters.text.value.trim().toLowerCase();
      const shown = events.filter((event) =>
        (!filters.type.value || event.type === filters.type.value)
        && (!filters.function.value || event.deliveries.some((delivery) => delivery.function === filters.function.value))
        && (!filters.status.value || event.deliveries.some((delivery) => statusOf(delivery) === filters.status.value)
          || (filters.status.value === 'pending' && !event.done))
        && matchesText(event, text));
      const rows = [];
      for (const event of shown) {
        const expanded = open.has(event.id);
        const toggle = h('button', { class: 'link', 'aria-expanded': String(expanded), onclick: () => {
          if (open.has(event.id)) open.delete(event.id); else open.add(event.id);
          drawLog();
        } }, event.id);
        rows.push(h('tr', { 'data-event': event.id },
          h('td', {}, time(event.time)), h('td', {}, toggle), h('td', {}, h('code', {}, event.type)),
          h('td', {}, event.subject ?? ''),
          h('td', {}, event.deliveries.map((delivery) =>
            h('span', { class: `badge ${statusOf(delivery)}` }, `${delivery.function}: ${delivery.status} ×${delivery.attempts}`))),
          h('td', {}, event.done ? 'done' : h('span', { class: 'warn' }, 'in flight'))));
        if (expanded) {
          rows.push(h('tr', { class: 'detail' }, h('td', { colspan: 6 },
            h('div', { class: 'columns' },
              h('div', {}, h('h3', {}, 'Deliveries'), table(['Function', 'Attempts', 'Outcome', 'Last error'],
                event.deliveries.map((delivery) => [delivery.function, String(delivery.attempts), delivery.status, delivery.lastError ?? '']),
                { empty: 'No function matched this event.' }),
              h('h3', {}, 'Every attempt'), table(['Function', 'Attempt', 'Started', 'Duration', 'Outcome', 'Error'],
                event.deliveries.flatMap((delivery) => (delivery.attemptLog ?? []).map((attempt) => h('tr', { 'data-attempt': attempt.outcome },
                  h('td', {}, delivery.function), h('td', {}, String(attempt.attempt)), h('td', {}, time(attempt.startedAt)),
                  h('td', {}, `${attempt.durationMs} ms`), h('td', { class: attempt.outcome === 'failed' ? 'error-text' : 'ok' }, attempt.outcome),
                  h('td', {}, attempt.error ?? '')))),
                { empty: 'No attempt has ended yet.' })),
              h('div', {}, h('h3', {}, 'Event'), json({ id: event.id, type: event.type, source: event.source, subject: event.subject, time: event.time, recoveries: event.recoveries, traceId: event.traceId }))),
            event.traceId ? h('div', {}, h('h3', {}, 'Trace'), traceBox(event.traceId)) : null)));
        }
      }
      replace(logBox, table(['Time', 'Id', 'Type', 'Subject', 'Deliveries', 'State'], rows,
        { empty: events.length ? 'No event matches these filters.' : 'No events yet: write to the database, publish a template or sign a user up.' }));
    }

    async function drawDeadLetters() {
      const { deadLetters } = await get(`${emulatorPath}/deadLetters`);
      replace(deadBox, table(['Time', 'Function', 'Event', 'Attempts', 'Reason', 'Last error', ''], deadLetters.slice().reverse().map((letter) => {
        const note = h('span', { 'aria-live': 'polite' });
        return [time(letter.time), letter.function, h('code', {}, letter.eventId), String(letter.attempts), letter.reason,
          letter.lastError ?? '',
          h('span', {}, h('button', { 'data-replay': letter.id, onclick: async () => {
            try {
              await call('POST', `${emulatorPath}/deadLetters:replay`, { body: { id: letter.id } });
              replace(note, ' replayed');
            } catch (error) { replace(note, errorNote(error)); }
          } }, 'Replay'), note)];
      }), { empty: 'No dead letters: every event was delivered, or is still being retried.' }));
    }

    async function drawTrigger() {
      const description = await get(`${emulatorPath}/functions`);
      const names = Object.entries(description.endpoints ?? {}).filter(([, endpoint]) => endpoint.eventTrigger).map(([name]) => name).sort();
      if (names.length === 0) {
        replace(triggerBox, h('p', { class: 'empty' }, 'No event functions are deployed.'));
        return;
      }
      const chooser = h('select', { id: 'trigger-function', name: 'function' }, names.map((name) => h('option', { value: name }, name)));
      const data = h('textarea', { id: 'trigger-data', name: 'data', rows: 6, cols: 60, spellcheck: 'false' }, '{}');
      const result = h('div', { 'aria-live': 'polite' });
      replace(triggerBox, h('form', { onsubmit: async (event) => {
        event.preventDefault();
        let parsed;
        try { parsed = JSON.parse(data.value); } catch (error) { replace(result, errorNote(`The data is not JSON: ${error.message}`)); return; }
        try {
          const { body } = await call('POST', `${emulatorPath}/functions/${encodeURIComponent(chooser.value)}:trigger`, { body: { event: { data: parsed } } });
          replace(result, json(body));
        } catch (error) { replace(result, errorNote(error)); }
      } },
      h('p', { class: 'hint' }, 'The event gets the function\'s event type and the data given, and goes straight to the function (as `functions trigger` sends it); the answer reports that one attempt.'),
      h('div', { class: 'field' }, h('label', { for: 'trigger-function' }, 'Function'), chooser),
      h('div', { class: 'field' }, h('label', { for: 'trigger-data' }, 'Data (JSON)'), data),
      h('button', { type: 'submit', class: 'primary' }, 'Send'), result));
    }

    async function refresh(areas = ['events', 'functions']) {
      if (areas.includes('events')) {
        const log = await get(`${emulatorPath}/events?limit=500`);
        events = log.events.slice().reverse();
        traces.clear();
        options(filters.type, new Set(events.map((event) => event.type)), 'any type');
        options(filters.function, new Set(events.flatMap((event) => event.deliveries.map((delivery) => delivery.function))), 'any function');
        drawLog();
        await drawDeadLetters();
      }
      if (areas.includes('functions')) await drawTrigger();
    }
    await refresh();
    return { refresh: (areas) => refresh(areas).catch((error) => replace(logBox, errorNote(error))) };
  },
};
