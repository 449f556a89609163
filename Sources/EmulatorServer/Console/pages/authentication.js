// Authentication: users with search and paging; add, edit (custom claims included), disable and
// delete; the e-mail action codes the emulator would have mailed, with their links; and the
// import of a Firebase or Parse export file.
import { call, project, emulatorPath } from '../api.js';
import { h, replace, section, table, errorNote, time } from '../dom.js';

const accounts = `/identitytoolkit.googleapis.com/v1/projects/${encodeURIComponent(project)}/accounts`;
const pageSize = 25;

export default {
  id: 'authentication',
  title: 'Authentication',
  areas: ['auth'],
  async render(container) {
    const usersBox = h('div', { id: 'users' });
    const pager = h('div', { class: 'inline' });
    const editBox = h('div', { id: 'user-editor', 'aria-live': 'polite' });
    const search = h('input', { id: 'user-search', name: 'search', type: 'search', size: 32, placeholder: 'uid or e-mail' });
    const searchResult = h('span', { 'aria-live': 'polite' });
    let pageTokens = [''];
    let page = 0;
    let found = null;

    const searchForm = h('form', { class: 'inline', role: 'search', onsubmit: async (event) => {
      event.preventDefault();
      const text = search.value.trim();
      if (!text) { found = null; await refresh(); return; }
      try {
        const { body } = await call('POST', `${accounts}:lookup`, { body: text.includes('@') ? { email: [text] } : { localId: [text] } });
        found = body.users ?? [];
        replace(searchResult, found.length ? '' : ` no user ${text}`);
        draw(found, false);
      } catch (error) { replace(searchResult, errorNote(error)); }
    } }, h('label', { for: 'user-search' }, 'Find'), search, h('button', { type: 'submit' }, 'Find'),
    h('button', { type: 'button', onclick: async () => { search.value = ''; found = null; replace(searchResult); await refresh(); } }, 'All users'), searchResult);

    const email = h('input', { id: 'new-email', name: 'email', type: 'email', size: 24 });
    const password = h('input', { id: 'new-password', name: 'password', type: 'password', size: 14, autocomplete: 'new-password' });
    const displayName = h('input', { id: 'new-name', name: 'displayName', size: 16 });
    const addResult = h('div', { 'aria-live': 'polite' });
    const addForm = h('form', { class: 'inline', onsubmit: async (event) => {
      event.preventDefault();
      const body = {};
      if (email.value) body.email = email.value;
      if (password.value) body.password = password.value;
      if (displayName.value) body.displayName = displayName.value;
      try {
        const { body: created } = await call('POST', accounts, { body });
        replace(addResult, h('p', { class: 'ok' }, `Added ${created.localId}.`));
        email.value = password.value = displayName.value = '';
      } catch (error) { replace(addResult, errorNote(error)); }
    } }, h('label', { for: 'new-email' }, 'E-mail'), email, h('label', { for: 'new-password' }, 'Password'), password,
    h('label', { for: 'new-name' }, 'Name'), displayName, h('button', { type: 'submit', class: 'primary' }, 'Add user'), addResult);

    const importFile = h('input', { id: 'import-file', name: 'file', type: 'file', accept: 'application/json,.json' });
    const importFormat = h('select', { id: 'import-format', name: 'format' },
      h('option', { value: 'firebase' }, 'Firebase (auth:export)'), h('option', { value: 'parse' }, 'Parse (_User export)'));
    const importResult = h('div', { id: 'import-result', 'aria-live': 'polite' });
    const importForm = h('form', { class: 'inline', onsubmit: async (event) => {
      event.preventDefault();
      const file = importFile.files[0];
      if (!file) { replace(importResult, errorNote('Choose an export file.')); return; }
      let exported;
      try { exported = JSON.parse(await file.text()); } catch (error) { replace(importResult, errorNote(`${file.name} is not JSON: ${error.message}`)); return; }
      try {
        const { body } = await call('POST', `${emulatorPath}/accounts:import`, { body: { format: importFormat.value, export: exported, hashAlgorithm: 'BCRYPT' } });
        replace(importResult, h('p', { class: body.errors.length ? 'warn' : 'ok' }, `Imported ${body.imported} user${body.imported === 1 ? '' : 's'}.`),
          body.errors.length ? table(['User', 'Refused because'], body.errors.map((error) => [String(error.index), error.message])) : null);
      } catch (error) { replace(importResult, errorNote(error)); }
    } }, h('label', { for: 'import-file' }, 'Export file'), importFile, h('label', { for: 'import-format' }, 'format'), importFormat,
    h('button', { type: 'submit' }, 'Import'), importResult);

    const codesBox = h('div', { id: 'oob-codes' });
    const codesResult = h('span', { 'aria-live': 'polite' });
    const clearCodes = h('button', { type: 'button', onclick: async () => {
      try { await call('DELETE', `${emulatorPath}/oobCodes`); replace(codesResult); await drawCodes(); } catch (error) { replace(codesResult, errorNote(error)); }
    } }, 'Clear all');

    replace(container,
      section('Users', searchForm, usersBox, pager, editBox),
      section('E-mail actions', h('p', { class: 'hint' }, 'Password resets, verifications and sign-in links asked for and not yet used: the mails the emulator would have sent. A link opens the page that completes the action.'),
        codesBox, h('div', { class: 'inline' }, clearCodes, codesResult)),
      section('Add a user', addForm),
      section('Import users', h('p', { class: 'hint' }, 'Imported users keep their uid and bcrypt password hash: they sign in with the password they had.'), importForm));

    function edit(user) {
      const name = h('input', { id: 'edit-name', value: user.displayName ?? '', size: 20 });
      const mail = h('input', { id: 'edit-email', value: user.email ?? '', size: 26 });
      const disabled = h('input', { id: 'edit-disabled', type: 'checkbox' });
      disabled.checked = Boolean(user.disabled);
      const claims = h('textarea', { id: 'edit-claims', rows: 3, spellcheck: 'false' }, user.customAttributes ?? '{}');
      const result = h('div', { 'aria-live': 'polite' });
      replace(editBox, h('form', { class: 'card', onsubmit: async (event) => {
        event.preventDefault();
        try {
          await call('POST', `${accounts}:update`, { body: { localId: user.localId, displayName: name.value || undefined,
            email: mail.value || undefined, disableUser: disabled.checked, customAttributes: claims.value.trim() || '{}' } });
          replace(result, h('p', { class: 'ok' }, 'Saved.'));
        } catch (error) { replace(result, errorNote(error)); }
      } }, h('h3', {}, `Edit ${user.localId}`),
      h('div', { class: 'field' }, h('label', { for: 'edit-name' }, 'Name'), name, h('label', { for: 'edit-email' }, 'E-mail'), mail,
        h('label', { for: 'edit-disabled' }, 'Disabled'), disabled),
      h('div', { class: 'field' }, h('label', { for: 'edit-claims' }, 'Custom claims (JSON)'), claims),
      h('button', { type: 'submit', class: 'primary' }, 'Save'), ' ',
      h('button', { type: 'button', onclick: () => replace(editBox) }, 'Close'), result));
      name.focus();
    }

    function draw(users, paged = true) {
      replace(usersBox, table(['Uid', 'E-mail', 'Name', 'Providers', 'Created', 'Last sign-in', 'Claims', ''], users.map((user) =>
        h('tr', { 'data-user': user.localId, class: user.disabled ? 'muted' : '' },
          h('td', {}, h('code', {}, user.localId)), h('td', {}, user.email ?? ''), h('td', {}, user.displayName ?? ''),
          h('td', {}, (user.providerUserInfo ?? []).map((provider) => h('span', { class: 'badge' }, provider.providerId)),
            user.disabled ? h('span', { class: 'badge dead' }, 'disabled') : null),
          h('td', {}, time(user.createdAt)), h('td', {}, time(user.lastLoginAt)),
          h('td', {}, user.customAttributes ? h('code', {}, user.customAttributes) : ''),
          h('td', {}, h('button', { 'aria-label': `Edit ${user.localId}`, onclick: () => edit(user) }, 'Edit'), ' ',
            h('button', { class: 'danger', 'aria-label': `Delete ${user.localId}`, onclick: async () => {
              if (!window.confirm(`Delete ${user.email ?? user.localId}?`)) return;
              try { await call('POST', `${accounts}:delete`, { body: { localId: user.localId } }); } catch (error) { replace(editBox, errorNote(error)); }
            } }, 'Delete')))),
      { empty: found ? 'No user matches.' : 'No users yet: sign up from an app, add one here, or import an export.' }));
      replace(pager, paged ? [
        h('button', { type: 'button', disabled: page === 0, onclick: () => { page -= 1; refresh(); } }, '‹ Previous'),
        h('span', { class: 'hint' }, `page ${page + 1}`),
        h('button', { type: 'button', disabled: !pageTokens[page + 1], onclick: () => { page += 1; refresh(); } }, 'Next ›'),
      ] : []);
    }

    async function drawCodes() {
      const { body } = await call('GET', `${emulatorPath}/oobCodes`);
      const now = Date.now();
      const kinds = { PASSWORD_RESET: 'password reset', VERIFY_EMAIL: 'verification', EMAIL_SIGNIN: 'sign-in link', VERIFY_AND_CHANGE_EMAIL: 'change of address' };
      replace(codesBox, table(['E-mail', 'Action', 'Sent', 'Expires', 'Link'], body.oobCodes.slice().reverse().map((code) => {
        const expired = Date.parse(code.expireTime) <= now;
        return h('tr', { 'data-code': code.oobCode, class: expired ? 'muted' : '' },
          h('td', {}, code.email, code.newEmail ? ` → ${code.newEmail}` : ''), h('td', {}, kinds[code.requestType] ?? code.requestType),
          h('td', {}, time(code.createTime)), h('td', {}, expired ? h('span', { class: 'badge dead' }, 'expired') : time(code.expireTime)),
          h('td', {}, h('a', { href: code.oobLink, target: '_blank', rel: 'noopener' }, 'Open')));
      }), { empty: 'No codes: none was asked for, or all were used.' }));
      clearCodes.disabled = body.oobCodes.length === 0;
    }

    async function refresh() {
      await drawCodes();
      if (found) {
        // A search shows the users found, as they are now.
        const ids = found.map((user) => user.localId);
        found = ids.length ? ((await call('POST', `${accounts}:lookup`, { body: { localId: ids } })).body.users ?? []) : [];
        draw(found, false);
        return;
      }
      const token = pageTokens[page];
      const { body } = await call('GET', `${accounts}:batchGet?maxResults=${pageSize}${token ? `&nextPageToken=${encodeURIComponent(token)}` : ''}`);
      pageTokens[page + 1] = body.nextPageToken ?? '';
      draw(body.users ?? []);
    }
    await refresh();
    return { refresh };
  },
};
