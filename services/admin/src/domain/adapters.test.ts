import { withCredentials } from './adapters';

describe('withCredentials: the adapter writes its own credentials into a login body', () => {
  const basic = { type: 'basic' as const, username: 'nso-admin', password: 's3cret' };

  it('writes the user name and password at the pointers, leaving the body given as it was', () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'login', params: {} };
    expect(withCredentials('nso1', body, { user: '/params/user', password: '/params/passwd' }, basic)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'login',
      params: { user: 'nso-admin', passwd: 's3cret' },
    });
    expect(body.params).toEqual({});
    // RFC 6901 escapes: ~1 is a slash, ~0 a tilde
    expect(withCredentials('nso1', { 'a/b': {} }, { user: '/a~1b/u~0', password: '/a~1b/p' }, basic)).toEqual({
      'a/b': { 'u~': 'nso-admin', p: 's3cret' },
    });
  });

  it('refuses an adapter without a user name and password, a body that is not an object, a pointer to nowhere', () => {
    const at = { user: '/params/user', password: '/params/passwd' };
    expect(() => withCredentials('web', { params: {} }, at, { type: 'bearer', token: 't' })).toThrow(
      'Adapter "web" authenticates with bearer, not a user name and password: it has none to write into the request',
    );
    expect(() => withCredentials('nso1', 'login', at, basic)).toThrow('body.credentialsAt needs a JSON object body');
    expect(() => withCredentials('nso1', { method: 'login' }, at, basic)).toThrow(
      'body.credentialsAt.user "/params/user" does not point into an object of the body',
    );
  });
});
