import { TEST_ADMIN } from '@nap/standalone';

/**
 * Calls made as Itential's command line ipctl (github.com/itential/ipctl, pkg/services) makes them:
 * an OAuth profile's token (golang.org/x/oauth2 clientcredentials, the credentials in the form), then
 * every request with `Content-Type` and `Accept: application/json` (a bodyless one too, with
 * Content-Length 0) and the Bearer token; the status it expects checked as ipctl checks it.
 */

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- ipctl reads members of answers it types loosely
export type Loose = any;

export interface IpctlAnswer {
  status: number;
  body: Loose;
}

export interface IpctlCallOptions {
  query?: Record<string, string>;
  body?: unknown;
  /** Another Bearer token than the profile's. */
  token?: string;
}

export type Ipctl = (method: string, path: string, options?: IpctlCallOptions) => Promise<IpctlAnswer>;

/** The token of an OAuth profile with the test admin's client id and secret. */
export async function ipctlToken(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: TEST_ADMIN.username, client_secret: TEST_ADMIN.password }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

/** ipctl's client for `baseUrl` with the profile's token. A 204 has no body for ipctl to read: its text is answered. */
export function ipctlClient(baseUrl: string, token: () => string): Ipctl {
  return async (method, path, options = {}) => {
    const url = new URL(path, baseUrl);
    for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
    const payload = options.body === undefined ? '' : JSON.stringify(options.body);
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${options.token ?? token()}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'content-length': String(Buffer.byteLength(payload)),
      },
      body: method === 'GET' ? undefined : payload,
    });
    if (res.status === 204) return { status: 204, body: await res.text() };
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    return { status: res.status, body: await res.json() };
  };
}

/** The status ipctl checks (`expectedStatusCode`); on another one, the answer is shown too, as ipctl prints it. */
export function expectStatus(res: IpctlAnswer, status: number): void {
  expect({ status: res.status, ...(res.status === status ? {} : { body: res.body }) }).toEqual({ status });
}

/** ipctl's GetAll loop: pages of 100 until as many items were read as the answer's total says. */
export async function ipctlGetAll(
  ipctl: Ipctl,
  path: string,
  items: (body: Loose) => unknown[],
  total: (body: Loose) => number,
): Promise<unknown[]> {
  const read: unknown[] = [];
  for (let skip = 0; ; skip += 100) {
    const page = await ipctl('GET', path, { query: { limit: '100', skip: String(skip) } });
    expect(page.status).toBe(200);
    read.push(...items(page.body));
    if (read.length >= total(page.body)) return read;
    expect(items(page.body).length).toBeGreaterThan(0); // a page that reads nothing would loop for ever
  }
}
