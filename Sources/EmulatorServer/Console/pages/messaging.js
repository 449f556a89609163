// Messaging: devices with their platform and topics, topics with their subscribers, each
// device's inbox, and a form that sends a message to a token, a topic or a condition.
import { call, get, adminPath, emulatorPath } from '../api.js';
import { h, replace, section, table, json, errorNote, time } from '../dom.js';

export default {
  id: 'messaging',
  title: 'Messaging',
  areas: ['messaging'],
  async render(container, query) {
    let selected = query.get('device');
    let devices = [];
    const devicesBox = h('div', { id: 'devices' });
    const topicsBox = h('div', { id: 'topics' });
    const inboxBox = h('div', { id: 'inbox' });
    const sendResult = h('div', { 'aria-live': 'polite' });

    const platform = h('select', { id: 'register-platform', name: 'platform' }, ['ios', 'android', 'web'].map((name) => h('option', { value: name }, name)));
    const registerResult = h('span', { 'aria-live': 'polite' });
    const registerForm = h('form', { class: 'inline', onsubmit: async (event) => {
      event.preventDefault();
      try {
        const { body } = await call('POST', `${emulatorPath}/devices`, { body: { platform: platform.value } });
        selected = body.token;
        replace(registerResult, ` registered ${body.token.slice(0, 16)}…`);
        await refresh();
        subscribeDevice.value = body.token;  // the next thing one does with a new device
      } catch (error) { replace(registerResult, errorNote(error)); }
    } }, h('label', { for: 'register-platform' }, 'Register a device'), platform, h('button', { type: 'submit' }, 'Register'), registerResult);

    const targetKind = h('select', { id: 'send-kind', name: 'kind' }, ['topic', 'token', 'condition'].map((kind) => h('option', { value: kind }, kind)));
    const target = h('input', { id: 'send-target', name: 'target', size: 40, placeholder: 'PUSH_RC', required: true });
    const data = h('input', { id: 'send-data', name: 'data', size: 40, placeholder: 'KEY=value, OTHER=value' });
    const title = h('input', { id: 'send-title', name: 'title', size: 30 });
    const body = h('input', { id: 'send-body', name: 'body', size: 30 });
    const sendForm = h('form', { onsubmit: async (event) => {
      event.preventDefault();
      const message = { [targetKind.value]: target.value.trim() };
      const pairs = data.value.split(',').map((pair) => pair.trim()).filter(Boolean);
      if (pairs.length) {
        message.data = {};
        for (const pair of pairs) {
          const at = pair.indexOf('=');
          if (at < 1) { replace(sendResult, errorNote(`'${pair}' is not KEY=value`)); return; }
          message.data[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
        }
      }
      if (title.value || body.value) message.notification = { title: title.value || undefined, body: body.value || undefined };
      try {
        const { body: answer } = await call('POST', `${adminPath}/messages:send`, { body: { message } });
        replace(sendResult, h('p', { class: 'ok' }, `Sent: ${answer.name}`));
      } catch (error) { replace(sendResult, errorNote(error)); }
    } },
    h('div', { class: 'field' }, h('label', { for: 'send-kind' }, 'To'), targetKind, h('label', { for: 'send-target', class: 'visually-hidden' }, 'Target'), target),
    h('div', { class: 'field' }, h('label', { for: 'send-data' }, 'Data'), data),
    h('div', { class: 'field' }, h('label', { for: 'send-title' }, 'Notification title'), title, h('label', { for: 'send-body' }, 'body'), body),
    h('button', { type: 'submit', class: 'primary' }, 'Send'), sendResult);

    const subscribeDevice = h('select', { id: 'subscribe-device', name: 'device' });
    const subscribeTopic = h('input', { id: 'subscribe-topic', name: 'topic', size: 16, placeholder: 'PUSH_RC', required: true });
    const subscribeResult = h('span', { 'aria-live': 'polite' });
    const subscribeForm = h('form', { class: 'inline', onsubmit: async (event) => {
      event.preventDefault();
      try {
        await call('POST', '/iid/v1:batchAdd', { body: { to: `/topics/${subscribeTopic.value.trim()}`, registration_tokens: [subscribeDevice.value] } });
        replace(subscribeResult, ` subscribed to ${subscribeTopic.value.trim()}`);
      } catch (error) { replace(subscribeResult, errorNote(error)); }
    } }, h('label', { for: 'subscribe-device' }, 'Subscribe'), subscribeDevice, h('label', { for: 'subscribe-topic' }, 'to topic'),
    subscribeTopic, h('button', { type: 'submit' }, 'Subscribe'), subscribeResult);

    replace(container,
      section('Devices', registerForm, subscribeForm, devicesBox),
      section('Inbox', inboxBox),
      section('Topics', topicsBox),
      section('Send a message', sendForm));

    function drawDevices() {
      replace(devicesBox, table(['Token', 'Platform', 'Topics', 'Registered'], devices.map((device) =>
        h('tr', { 'data-device': device.token, class: device.token === selected ? 'selected' : '' },
          h('td', {}, h('button', { class: 'link', 'data-open-inbox': device.token, onclick: () => { selected = device.token; drawDevices(); drawInbox(); } },
            h('code', {}, `${device.token.slice(0, 24)}…`))),
          h('td', {}, device.platform ?? ''),
          h('td', {}, device.topics.map((topic) => h('span', { class: 'badge' }, topic))),
          h('td', {}, time(device.createdAt)))),
      { empty: 'No devices yet: register one here, or from an app with the emulator\'s device route.' }));
      // The subscribe form stays as the user left it; only its list of devices follows.
      const chosen = subscribeDevice.value || selected;
      replace(subscribeDevice, devices.map((device) => h('option', { value: device.token }, `${device.token.slice(0, 24)}… (${device.platform ?? '?'})`)));
      if (chosen) subscribeDevice.value = chosen;
    }

    function drawTopics() {
      const topics = new Map();
      for (const device of devices) for (const topic of device.topics) topics.set(topic, [...(topics.get(topic) ?? []), device.token]);
      replace(topicsBox, table(['Topic', 'Subscribers'], [...topics.keys()].sort().map((topic) =>
        [h('code', {}, topic), `${topics.get(topic).length}: ${topics.get(topic).map((token) => `${token.slice(0, 10)}…`).join(', ')}`]),
      { empty: 'No device is subscribed to a topic.' }));
    }

    async function drawInbox() {
      if (!selected) { replace(inboxBox, h('p', { class: 'empty' }, 'Choose a device to see its inbox.')); return; }
      try {
        const { messages } = await get(`${emulatorPath}/devices/${encodeURIComponent(selected)}/messages`);
        replace(inboxBox, h('p', { class: 'hint' }, `Device ${selected.slice(0, 24)}…, ${messages.length} message${messages.length === 1 ? '' : 's'}, newest first.`),
          table(['Sent', 'Via', 'Data', 'Notification', 'Message'], messages.slice().reverse().map((message) => h('tr', { 'data-message': message.name },
            h('td', {}, time(message.sendTime)),
            h('td', {}, message.topic ? `topic ${message.topic}` : message.condition ? `condition ${message.condition}` : 'token'),
            h('td', {}, Object.entries(message.data ?? {}).map(([key, value]) => h('div', { class: 'kv' }, h('code', {}, key), ' = ', h('code', {}, value)))),
            h('td', {}, message.notification ? [message.notification.title, message.notification.body].filter(Boolean).join(' — ') : ''),
            h('td', {}, h('details', {}, h('summary', {}, message.name.split('/').pop()), json(message))))),
          { empty: 'This inbox is empty.' }));
      } catch (error) { replace(inboxBox, errorNote(error)); }
    }

    async function refresh() {
      ({ devices } = await get(`${emulatorPath}/devices`));
      if (!selected && devices.length) selected = devices[0].token;
      drawDevices();
      drawTopics();
      await drawInbox();
    }
    await refresh();
    return { refresh };
  },
};
