/** What every console page uses: the JSON endpoints with the session cookie, and table cells. */
export type Json = Record<string, unknown>;

export async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(path, {
    ...init,
    headers: {
      accept: 'application/json',
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
  });
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status}`);
  return (response.status === 204 ? undefined : await response.json()) as T;
}

export const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export function cell(row: HTMLTableRowElement, text: string): void {
  row.insertCell().textContent = text;
}

export const time = (iso: string | null | undefined) =>
  iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 16) : '—';
