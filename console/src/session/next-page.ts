/**
 * Only a page of the console itself may follow the log-in (never another site): a path of this
 * origin, without the backslashes and control characters browsers read as `/` or drop
 * (`/\example.com` is `//example.com` to a browser). Anything else goes to the home page.
 */
export function safeNext(next: string | null): string {
  const unsafe = (c: string) => c === '\\' || c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f;
  if (!next || !next.startsWith('/') || next.startsWith('//') || [...next].some(unsafe)) return '/';
  try {
    const url = new URL(next, 'http://console.invalid');
    // dot segments can leave a path of two slashes (`/a/..//example.com`), which reads as another site
    return url.origin === 'http://console.invalid' && !url.pathname.startsWith('//') ? `${url.pathname}${url.search}${url.hash}` : '/';
  } catch {
    return '/';
  }
}
