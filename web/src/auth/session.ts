// The API key lives in sessionStorage only: gone when the tab closes, never in a cookie (so no
// request is ever authenticated by the browser on its own, and CSRF has nothing to ride on).
const KEY_NAME = 'ledger-console.api-key';

export function readApiKey(): string | null {
  try {
    return window.sessionStorage.getItem(KEY_NAME);
  } catch {
    return null;
  }
}

export function storeApiKey(key: string): void {
  window.sessionStorage.setItem(KEY_NAME, key);
}

export function clearApiKey(): void {
  window.sessionStorage.removeItem(KEY_NAME);
}
