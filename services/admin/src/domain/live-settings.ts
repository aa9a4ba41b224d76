import type { LiveSettings } from '@nap/bus';
import { SERVICE_SETTINGS_SCHEMAS, parseAs } from '@nap/contracts';
import type { AdminSettings } from '@nap/contracts';
import { DEFAULT_CALL_TIMEOUT_MS } from './integrations';
import { DEFAULT_LOGIN_THROTTLE, DEFAULT_PASSWORD_MIN_LENGTH } from './login-throttle';
import type { LoginThrottleRules } from './login-throttle';

const schema = SERVICE_SETTINGS_SCHEMAS.admin;

/**
 * The admin service's settings that change while it runs (`PUT /applications/AdminEssentials/properties`,
 * and the active profile's `authenticationProps.logoutTime`, `.passwordRules` and `.loginThrottle`, and
 * `integrationProps.timeout`). One
 * object per process, read by the domains on every use, so a change applies from the next request on.
 */
export class AdminLiveSettings {
  /** Lifetime of new tokens, seconds. */
  tokenTtlSeconds: number;
  /** Minutes a session may stay unused before it ends; none when undefined. */
  sessionIdleMinutes: number | undefined;
  /** Bound of an integration or adapter call that names none, ms. */
  integrationTimeoutMs: number;
  /** Fewest characters of a new password. */
  passwordMinLength: number;
  /** Thresholds and waits of login throttling. */
  loginThrottle: LoginThrottleRules;

  constructor(private readonly start: { tokenTtlSeconds: number }) {
    this.tokenTtlSeconds = start.tokenTtlSeconds;
    this.sessionIdleMinutes = undefined;
    this.integrationTimeoutMs = DEFAULT_CALL_TIMEOUT_MS;
    this.passwordMinLength = DEFAULT_PASSWORD_MIN_LENGTH;
    this.loginThrottle = DEFAULT_LOGIN_THROTTLE;
  }

  /** The values of the process's start: members an operator leaves out go back to these. */
  defaults(): AdminSettings {
    return {
      tokenTtlSeconds: this.start.tokenTtlSeconds,
      integrationTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
      passwordMinLength: DEFAULT_PASSWORD_MIN_LENGTH,
      loginThrottle: { ...DEFAULT_LOGIN_THROTTLE },
    };
  }

  /** What `serve` hands the replica's control channel. */
  live(): LiveSettings {
    return {
      schema,
      defaults: this.defaults(),
      apply: (values) => {
        const next = parseAs(schema, values, 'properties');
        this.tokenTtlSeconds = next.tokenTtlSeconds ?? this.start.tokenTtlSeconds;
        this.sessionIdleMinutes = next.sessionIdleMinutes;
        this.integrationTimeoutMs = next.integrationTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
        this.passwordMinLength = next.passwordMinLength ?? DEFAULT_PASSWORD_MIN_LENGTH;
        this.loginThrottle = { ...DEFAULT_LOGIN_THROTTLE, ...next.loginThrottle };
      },
    };
  }
}
