/** The account page's list of signed-in browsers (GET /auth/sessions), each of which can be signed out. */

import { browserOf, systemOf } from '@/accounts/device-names';
import { api } from './api';

export interface BrowserSession {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  ip: string | null;
  userAgent: string | null;
  current: boolean;
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** A short name for a user agent: the browser and system it names, else the string itself. */
function browserName(userAgent: string | null): string {
  if (!userAgent) return 'Unknown browser';
  const browser = browserOf(userAgent);
  if (!browser) return userAgent.slice(0, 60);
  const system = systemOf(userAgent);
  return system ? `${browser} on ${system}` : browser;
}

function itemOf(
  session: BrowserSession,
  signOut: (session: BrowserSession, button: HTMLButtonElement) => void,
): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'event session';
  const what = document.createElement('div');
  what.className = 'name';
  what.textContent = session.current
    ? `${browserName(session.userAgent)} (this browser)`
    : browserName(session.userAgent);
  const meta = document.createElement('div');
  meta.className = 'meta';
  const where = session.ip === null ? [] : [`from ${session.ip}`];
  meta.textContent = [
    `Signed in ${dateFormat.format(new Date(session.createdAt))}`,
    `last seen ${dateFormat.format(new Date(session.lastSeenAt))}`,
    ...where,
  ].join(' · ');
  if (session.userAgent) meta.title = session.userAgent;
  item.append(what, meta);
  if (!session.current) {
    const button = document.createElement('button');
    button.type = 'button';
    button.className = 'secondary small';
    button.textContent = 'Sign out';
    button.setAttribute('aria-label', `Sign out ${browserName(session.userAgent)}`);
    button.addEventListener('click', () => signOut(session, button));
    item.append(button);
  }
  return item;
}

/** Shows the account's signed-in browsers in `list`; `signOut` ends one of the others. */
export async function showSessions(
  list: HTMLUListElement,
  signOut: (session: BrowserSession, button: HTMLButtonElement) => void,
) {
  const { sessions } = await api<{ sessions: BrowserSession[] }>('GET', '/auth/sessions');
  list.replaceChildren(...sessions.map((session) => itemOf(session, signOut)));
}
