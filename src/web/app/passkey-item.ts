/** Rendering of one passkey of the account page (no inline styles: CSP style-src 'self'). */
import type { Passkey } from './api';

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

function passkeyDescription(passkey: Passkey): string {
  const parts = [`Added ${dateFormat.format(new Date(passkey.createdAt))}`];
  // The provider, when the name the user gave does not already say it.
  if (!passkey.name.startsWith(passkey.provider)) parts.unshift(passkey.provider);
  parts.push(
    passkey.lastUsedAt
      ? `last used ${dateFormat.format(new Date(passkey.lastUsedAt))}`
      : 'not used yet',
  );
  parts.push(passkey.deviceType === 'multiDevice' ? 'synced' : 'this device only');
  return parts.join(' · ');
}

function button(label: string, className: string, onClick: () => void): HTMLButtonElement {
  const node = document.createElement('button');
  node.type = 'button';
  node.textContent = label;
  node.className = className;
  node.addEventListener('click', onClick);
  return node;
}

export interface PasskeyActions {
  rename(passkey: Passkey, name: string, button: HTMLButtonElement): void;
  remove(passkey: Passkey, button: HTMLButtonElement): void;
}

/** One passkey in the list: view, inline rename form, or delete confirmation. */
export function renderPasskey(passkey: Passkey, actions: PasskeyActions): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'passkey';
  item.dataset.passkeyId = passkey.id;

  const showView = () => {
    const name = document.createElement('div');
    name.className = 'name';
    name.textContent = passkey.name;
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = passkeyDescription(passkey);
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    buttons.append(
      button('Rename', 'secondary small', showRename),
      button('Delete', 'secondary small', showConfirmDelete),
    );
    item.replaceChildren(name, meta, buttons);
  };

  const showRename = () => {
    const form = document.createElement('form');
    const label = document.createElement('label');
    label.textContent = 'New name';
    const input = document.createElement('input');
    input.value = passkey.name;
    input.maxLength = 64;
    input.required = true;
    input.setAttribute('aria-label', `New name for ${passkey.name}`);
    label.append(input);
    const save = document.createElement('button');
    save.type = 'submit';
    save.textContent = 'Save';
    save.className = 'small';
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    buttons.append(save, button('Cancel', 'secondary small', showView));
    form.append(label, buttons);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      actions.rename(passkey, input.value, save);
    });
    item.replaceChildren(form);
    input.focus();
    input.select();
  };

  const showConfirmDelete = () => {
    const question = document.createElement('p');
    question.className = 'confirm';
    question.textContent = `Delete “${passkey.name}”? You won't be able to sign in with it any more.`;
    const confirm = button('Yes, delete', 'danger small', () => actions.remove(passkey, confirm));
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    buttons.append(confirm, button('Keep it', 'secondary small', showView));
    item.replaceChildren(question, buttons);
  };

  showView();
  return item;
}
