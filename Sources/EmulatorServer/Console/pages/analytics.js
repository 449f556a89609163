// Analytics: the events apps logged, newest first, filtered by name, app instance and text.
import { get, emulatorPath } from '../api.js';
import { h, replace, section, table, json, errorNote, time, matchesText } from '../dom.js';

export default {
  id: 'analytics',
  title: 'Analytics',
  areas: ['analytics'],
  async render(container) {
    const name = h('input', { id: 'analytics-name', name: 'name', size: 18, placeholder: 'any event' });
    const instance = h('input', { id: 'analytics-instance', name: 'instance', size: 24, placeholder: 'any app instance' });
    const text = h('input', { id: 'analytics-text', name: 'text', type: 'search', size: 18, placeholder: 'parameters, user…' });
    const eventsBox = h('div', { id: 'analytics-events' });
    let events = [];

    const form = h('form', { class: 'filters', role: 'search', onsubmit: (event) => { event.preventDefault(); refresh(); } },
      h('label', { for: 'analytics-name' }, 'Event'), name, h('label', { for: 'analytics-instance' }, 'App instance'), instance,
      h('button', { type: 'submit' }, 'Show'), h('label', { for: 'analytics-text' }, 'Text'), text);
    text.addEventListener('input', draw);
    replace(container, section('Logged events', form, eventsBox));

    function draw() {
      const needle = text.value.trim().toLowerCase();
      const shown = events.filter((event) => matchesText(event, needle));
      replace(eventsBox, table(['Time', 'Event', 'App instance', 'User', 'Parameters'], shown.map((event) => [
        time(event.timestamp), h('code', {}, event.name), h('code', {}, event.appInstanceId), event.userId ?? '',
        Object.keys(event.params ?? {}).length ? json(event.params) : '',
      ]), { empty: events.length ? 'No event matches.' : 'No events logged yet: apps log them to /emulator/v1/projects/…/analytics:log, as the SDKs\' measurement calls do.' }));
    }

    async function refresh() {
      const query = new URLSearchParams({ limit: '500' });
      if (name.value.trim()) query.set('name', name.value.trim());
      if (instance.value.trim()) query.set('appInstanceId', instance.value.trim());
      try {
        events = (await get(`${emulatorPath}/analytics/events?${query}`)).events.slice().reverse();
        draw();
      } catch (error) { replace(eventsBox, errorNote(error)); }
    }
    await refresh();
    return { refresh };
  },
};
