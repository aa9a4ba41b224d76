/**
 * A call of the HTTP interface as a script makes it: answers the status and the body (JSON, else
 * text), typed as `T` by the caller's word (nothing checks it).
 */
export async function call<T = unknown>(
  url: string,
  token: string | undefined,
  method: string,
  route: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // a token is plain text
  }
  return { status: res.status, body: parsed as T };
}

export async function login(url: string, username: string, password: string): Promise<string> {
  const res = await call(url, undefined, 'POST', '/login', { user: { username, password } });
  if (res.status !== 200) throw new Error(`login of ${username}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as string;
}
