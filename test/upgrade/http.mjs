/**
 * A call of the HTTP interface as the upgrade scripts make it, against any release: answers the
 * status and the body (JSON, else text: a token is plain text).
 */
export async function call(url, token, method, route, body) {
  const res = await fetch(`${url}${route}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    return { status: res.status, body: text };
  }
}
