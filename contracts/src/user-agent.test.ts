import { userAgentSummary } from './user-agent';

describe('userAgentSummary', () => {
  it.each([
    ['Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36', 'Chrome 131 on Linux'],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86',
      'Edge 131 on Windows',
    ],
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Safari/605.1.15',
      'Safari 17 on macOS',
    ],
    [
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.6778.33 Safari/537.36',
      'Chrome 131 on Linux',
    ],
    ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox 133 on Linux'],
    ['python-requests/2.32.3', 'python-requests/2.32.3'],
    ['curl/8.5.0', 'curl/8.5.0'],
    ['ansible-httpget', 'ansible-httpget'],
    ['  ', '-'],
    [undefined, '-'],
  ])('%s → %s', (userAgent, summary) => {
    expect(userAgentSummary(userAgent)).toBe(summary);
  });
});
