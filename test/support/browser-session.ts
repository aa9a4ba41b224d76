/**
 * A browser for tests of browser sign-in over plain HTTP: fetch with a cookie jar, redirects
 * followed one by one (so a test sees each hop), forms posted as a browser posts them. Cookies are
 * kept per host and port with their path; `Max-Age=0` or a past `Expires` deletes one.
 */

interface StoredCookie {
  value: string;
  path: string;
}

/** One answer on the way: where it was asked and what came back. */
export interface Hop {
  url: string;
  status: number;
  location?: string;
}

export interface BrowserAnswer {
  /** The last URL asked. */
  url: string;
  status: number;
  headers: Headers;
  text: string;
  /** Every answer, the last one included. */
  hops: Hop[];
}

export class BrowserSession {
  private readonly jar = new Map<string, Map<string, StoredCookie>>();

  /** The cookie `name` the jar holds for the origin of `url`. */
  cookie(url: string, name: string): string | undefined {
    return this.jar.get(new URL(url).host)?.get(name)?.value;
  }

  /** Sets a cookie by hand (as another browser, or to replay one). */
  setCookie(url: string, name: string, value: string, path = '/'): void {
    const host = new URL(url).host;
    const cookies = this.jar.get(host) ?? new Map<string, StoredCookie>();
    cookies.set(name, { value, path });
    this.jar.set(host, cookies);
  }

  /** GET `url`, following redirects until an answer that is not one, or one whose target `stop` picks (not asked then). */
  get(url: string, stop?: (next: URL) => boolean): Promise<BrowserAnswer> {
    return this.navigate(url, { method: 'GET' }, stop);
  }

  /** POST a form to `url` as a browser does (`application/x-www-form-urlencoded`), then follow redirects as {@link get}. */
  postForm(url: string, form: Record<string, string>, stop?: (next: URL) => boolean): Promise<BrowserAnswer> {
    return this.navigate(
      url,
      { method: 'POST', body: new URLSearchParams(form).toString(), contentType: 'application/x-www-form-urlencoded' },
      stop,
    );
  }

  private async navigate(
    start: string,
    first: { method: string; body?: string; contentType?: string },
    stop: ((next: URL) => boolean) | undefined,
  ): Promise<BrowserAnswer> {
    const hops: Hop[] = [];
    let url = new URL(start);
    let request = first;
    for (let i = 0; i < 20; i += 1) {
      const headers: Record<string, string> = { accept: 'text/html,application/json' };
      const cookie = this.cookieHeader(url);
      if (cookie !== '') headers.cookie = cookie;
      if (request.contentType !== undefined) headers['content-type'] = request.contentType;
      const res = await fetch(url, {
        method: request.method,
        headers,
        redirect: 'manual',
        ...(request.body !== undefined ? { body: request.body } : {}),
      });
      this.keep(url, res.headers.getSetCookie());
      const location = res.headers.get('location') ?? undefined;
      hops.push({ url: url.href, status: res.status, ...(location !== undefined ? { location } : {}) });
      if (res.status < 300 || res.status >= 400 || location === undefined) {
        return { url: url.href, status: res.status, headers: res.headers, text: await res.text(), hops };
      }
      await res.arrayBuffer();
      const next = new URL(location, url);
      if (stop?.(next)) return { url: url.href, status: res.status, headers: res.headers, text: '', hops };
      url = next;
      // 307 and 308 keep the method and body; 301, 302 and 303 become a GET
      if (res.status !== 307 && res.status !== 308) request = { method: 'GET' };
    }
    throw new Error(`More than 20 redirects from ${start}`);
  }

  private cookieHeader(url: URL): string {
    const cookies = this.jar.get(url.host);
    if (cookies === undefined) return '';
    return [...cookies.entries()]
      .filter(([, c]) => url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([name, c]) => `${name}=${c.value}`)
      .join('; ');
  }

  private keep(url: URL, setCookies: string[]): void {
    const cookies = this.jar.get(url.host) ?? new Map<string, StoredCookie>();
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const at = pair.indexOf('=');
      const name = pair.slice(0, at);
      const value = pair.slice(at + 1);
      let path = '/';
      let gone = false;
      for (const attribute of attributes) {
        const [key = '', val = ''] = attribute.split('=');
        const lower = key.toLowerCase();
        if (lower === 'path') path = val;
        if (lower === 'max-age' && Number(val) <= 0) gone = true;
        if (lower === 'expires' && Date.parse(val) <= Date.now()) gone = true;
      }
      if (gone) cookies.delete(name);
      else cookies.set(name, { value, path });
    }
    this.jar.set(url.host, cookies);
  }
}
