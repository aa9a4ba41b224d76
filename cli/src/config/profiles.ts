import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, EXIT, usage } from '../errors';
import { loadIni } from '../lazy';

/**
 * Profiles: where a platform is and how to log in to it. Read from ipctl's `~/.platform.d/config`
 * and NAP's own `$XDG_CONFIG_HOME/nap/config` (the same INI format and keys; NAP's file wins key by
 * key), and from `NAP_*` environment variables, which need no file at all.
 */
export interface Profile {
  /** The profile's name, or `environment` when it comes from `NAP_URL`. */
  name: string;
  /** Where it was read from (file paths, `environment`), for messages. */
  source: string;
  /** `https://host:port`, without a trailing slash. */
  baseUrl: string;
  /** false: accept any TLS certificate (ipctl's `verify = false`). */
  verify: boolean;
  username?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
  /** A bearer token used as is (`NAP_TOKEN`, or `token` in a profile); never renewed. */
  token?: string;
  /** Bound of one request (connection and answer), in milliseconds; 0: none. */
  timeoutMs: number;
  /** The environment variables that set keys of the profile (`NAP_VERIFY` for verify), for messages. */
  variables?: Partial<Record<ProfileKey, string>>;
  /**
   * Where the secret the profile logs in with is kept (`client_secret` when it has a `client_id`,
   * else `password`), so that `nap password` can update it or say what to change; absent when none is set.
   */
  secretSource?: SecretSource;
}

/** The keys of a profile that hold the secret it logs in with. */
export type SecretKey = 'password' | 'client_secret';

/** A key of a profile section in one file, or an environment variable. */
export type SecretSource = { kind: 'file'; file: string; profile: string; key: SecretKey } | { kind: 'env'; variable: string };

/** Profile keys, as ipctl names them (`url` and `token` are NAP's additions). */
export const PROFILE_KEYS = [
  'host',
  'port',
  'use_tls',
  'verify',
  'username',
  'password',
  'client_id',
  'client_secret',
  'timeout',
  'url',
  'token',
] as const;
export type ProfileKey = (typeof PROFILE_KEYS)[number];
type Section = Partial<Record<ProfileKey, string>>;

/** Request timeout when a profile sets none (ipctl's 0 means no limit, and is kept as such). */
export const DEFAULT_TIMEOUT_SECONDS = 30;

export interface ConfigFiles {
  ipctl: string;
  nap: string;
}

/** The two files, after the environment (`IPCTL_CONFIG_FILE`, `NAP_CONFIG`, `XDG_CONFIG_HOME`). */
export function configFiles(env: NodeJS.ProcessEnv = process.env, configFlag?: string): ConfigFiles {
  const home = os.homedir();
  const xdg = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return {
    ipctl: env.IPCTL_CONFIG_FILE ?? path.join(home, '.platform.d', 'config'),
    nap: configFlag ?? env.NAP_CONFIG ?? path.join(xdg, 'nap', 'config'),
  };
}

export interface ParsedFile {
  profiles: Map<string, Section>;
  defaultProfile?: string;
  git: { name?: string; email?: string };
}

function parseFile(file: string): ParsedFile | undefined {
  if (!existsSync(file)) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw usage(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  return parseConfigText(text);
}

/** The profiles, default profile and Git identity an INI text holds, as the config files are read. */
export function parseConfigText(text: string): ParsedFile {
  const data = loadIni().parse(text) as Record<string, unknown>;
  const parsed: ParsedFile = { profiles: new Map(), git: {} };
  for (const [key, value] of Object.entries(data)) {
    if (typeof value !== 'object' || value === null) continue;
    const members = value as Record<string, unknown>;
    const match = /^profile\s+(\S+)$/.exec(key);
    if (match !== null) {
      const section: Section = {};
      for (const k of PROFILE_KEYS) {
        const v = members[k];
        if (v !== undefined && v !== null) section[k] = String(v);
      }
      parsed.profiles.set(match[1] as string, section);
    } else if (key === 'application' && typeof members.default_profile === 'string' && members.default_profile !== '') {
      parsed.defaultProfile = members.default_profile;
    } else if (key === 'git') {
      if (typeof members.name === 'string') parsed.git.name = members.name;
      if (typeof members.email === 'string') parsed.git.email = members.email;
    }
  }
  return parsed;
}

/** Everything the two files say, merged (NAP's file over ipctl's). */
export interface LoadedConfig {
  files: ConfigFiles;
  /** The files that exist, in the order they were read. */
  read: string[];
  profiles: Map<string, Section>;
  /** For each profile, the file each of its keys was read from (the last one that set it). */
  origins: Map<string, Partial<Record<ProfileKey, string>>>;
  defaultProfile?: string;
  git: { name?: string; email?: string };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, configFlag?: string): LoadedConfig {
  const files = configFiles(env, configFlag);
  if (configFlag !== undefined && !existsSync(configFlag)) throw usage(`the config file ${configFlag} does not exist`);
  const loaded: LoadedConfig = { files, read: [], profiles: new Map(), origins: new Map(), git: {} };
  for (const file of [files.ipctl, files.nap]) {
    const parsed = parseFile(file);
    if (parsed === undefined) continue;
    loaded.read.push(file);
    for (const [name, section] of parsed.profiles) {
      loaded.profiles.set(name, { ...loaded.profiles.get(name), ...section });
      const origins = loaded.origins.get(name) ?? {};
      for (const key of Object.keys(section) as ProfileKey[]) origins[key] = file;
      loaded.origins.set(name, origins);
    }
    if (parsed.defaultProfile !== undefined) loaded.defaultProfile = parsed.defaultProfile;
    loaded.git = { ...loaded.git, ...parsed.git };
  }
  return loaded;
}

/** Where a key's value came from, for messages: `NAP_VERIFY=maybe`, or `verify = maybe in <file>`. */
type Setting = (key: ProfileKey, value: string) => string;

function settingIn(where: string, variables: Partial<Record<ProfileKey, string>>): Setting {
  return (key, value) => {
    const variable = variables[key];
    return variable === undefined ? `${key} = ${value} in ${where}` : `${variable}=${value}`;
  };
}

function bool(value: string | undefined, fallback: boolean, key: ProfileKey, setting: Setting): boolean {
  if (value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (['true', 'yes', '1', 'on'].includes(v)) return true;
  if (['false', 'no', '0', 'off'].includes(v)) return false;
  throw usage(`${setting(key, value)} is not true or false`);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function timeoutMs(value: string | undefined, setting: Setting): number {
  if (value === undefined || value === '') return DEFAULT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw usage(`${setting('timeout', value)} is not a number of seconds`);
  return Math.round(seconds * 1000);
}

function baseUrlOf(section: Section, setting: Setting): string {
  const fromUrl = nonEmpty(section.url) !== undefined;
  const url = nonEmpty(section.url) ?? (nonEmpty(section.host)?.includes('://') === true ? section.host : undefined);
  if (url !== undefined) {
    let parsed: URL;
    try {
      parsed = new URL(url);
      if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw usage(`${setting(fromUrl ? 'url' : 'host', url)} is not an http:// or https:// URL`);
    }
    if (parsed.username !== '' || parsed.password !== '') {
      // fetch refuses such a URL, and every message would show the password: said with it masked
      if (parsed.password !== '') parsed.password = '****';
      throw usage(
        `${setting(fromUrl ? 'url' : 'host', parsed.href.replace(/\/+$/, ''))} holds credentials, which a URL cannot carry: give them as username and password (NAP_USERNAME and NAP_PASSWORD) instead`,
      );
    }
    return parsed.href.replace(/\/+$/, '');
  }
  const host = nonEmpty(section.host) ?? 'localhost';
  const tls = bool(section.use_tls, true, 'use_tls', setting);
  let port = Number(nonEmpty(section.port) ?? 0);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usage(`${setting('port', section.port ?? '')} is not a port number`);
  if (port === 0) port = tls ? 443 : 80;
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${tls ? 'https' : 'http'}://${hostPart}:${port}`;
}

/** The profile a section (over ipctl's `[profile default]`) describes; `variables` names the keys environment variables set. */
function profileOf(name: string, section: Section, source: string, variables: Partial<Record<ProfileKey, string>> = {}): Profile {
  const setting = settingIn(source, variables);
  const profile: Profile = {
    name,
    source,
    baseUrl: baseUrlOf(section, setting),
    verify: bool(section.verify, true, 'verify', setting),
    timeoutMs: timeoutMs(section.timeout, setting),
  };
  if (Object.keys(variables).length > 0) profile.variables = variables;
  const token = nonEmpty(section.token);
  const clientId = nonEmpty(section.client_id);
  const username = nonEmpty(section.username);
  if (token !== undefined) profile.token = token;
  if (clientId !== undefined) {
    profile.clientId = clientId;
    profile.clientSecret = section.client_secret ?? '';
  }
  if (username !== undefined) {
    profile.username = username;
    profile.password = section.password ?? '';
  }
  return profile;
}

/** The profile made from the environment alone (`NAP_URL`), which has no name of its own. */
export function fromEnvironmentOnly(profile: Profile): boolean {
  return profile.name === ENVIRONMENT && profile.source === ENVIRONMENT;
}

const ENVIRONMENT = 'environment';

/**
 * How to set a key of the profile, for a hint: `set NAP_VERIFY=false` where the environment sets
 * it (or is the whole profile), else `add verify = false to profile "lab"`.
 */
export function settingHint(profile: Profile, key: ProfileKey, value: string, napVariable: string): string {
  const variable = profile.variables?.[key] ?? (fromEnvironmentOnly(profile) ? napVariable : undefined);
  return variable === undefined ? `add ${key} = ${value} to profile "${profile.name}"` : `set ${variable}=${value}`;
}

/** The key that holds the credential a profile logs in with (or uses as is). */
function credentialKeys(profile: Profile): [ProfileKey, ProfileKey?] | undefined {
  if (profile.token !== undefined) return ['token'];
  if (profile.clientId !== undefined) return ['client_id', 'client_secret'];
  if (profile.username !== undefined) return ['username', 'password'];
  return undefined;
}

/** Whose credentials, for messages: `profile "lab"`, or the variables that hold them (`NAP_TOKEN`, `NAP_USERNAME and NAP_PASSWORD`). */
export function credentialsOrigin(profile: Profile): string {
  const keys = credentialKeys(profile);
  const variables = keys?.map((k) => (k === undefined ? undefined : profile.variables?.[k])).filter((v): v is string => v !== undefined);
  if (variables === undefined || variables.length === 0) return `profile "${profile.name}"`;
  return variables.join(' and ');
}

/** Where the timeout of a profile comes from, for messages. */
export function timeoutOrigin(profile: Profile): string {
  const variable = profile.variables?.timeout;
  if (variable !== undefined) return `the timeout ${variable} sets`;
  return fromEnvironmentOnly(profile) ? 'the default timeout (NAP_TIMEOUT sets another)' : `the timeout of profile "${profile.name}"`;
}

/** Where the address of a profile comes from, for the "cannot reach" hint. */
export function addressOrigin(profile: Profile): string {
  const variable = profile.variables?.url ?? profile.variables?.host;
  if (variable !== undefined) return `is ${variable} right?`;
  return `are host, port and use_tls of profile "${profile.name}" right?`;
}

/** ipctl's per-profile overrides: `IPCTL_PROFILE_<NAME>_<KEY>`. */
function ipctlOverrides(name: string, env: NodeJS.ProcessEnv): Section {
  const section: Section = {};
  for (const key of PROFILE_KEYS) {
    const value = env[`IPCTL_PROFILE_${name.toUpperCase()}_${key.toUpperCase()}`];
    if (value !== undefined) section[key] = value;
  }
  return section;
}

/** The variable of NAP's that sets each key. */
const NAP_VARIABLES: Partial<Record<ProfileKey, string>> = {
  url: 'NAP_URL',
  timeout: 'NAP_TIMEOUT',
  verify: 'NAP_VERIFY',
  token: 'NAP_TOKEN',
  client_id: 'NAP_CLIENT_ID',
  client_secret: 'NAP_CLIENT_SECRET',
  username: 'NAP_USERNAME',
  password: 'NAP_PASSWORD',
};

/** The variables that set the keys of a section: those of `IPCTL_PROFILE_<NAME>_<KEY>` or NAP's. */
function variablesOf(section: Section, name: (key: ProfileKey) => string | undefined): Partial<Record<ProfileKey, string>> {
  const variables: Partial<Record<ProfileKey, string>> = {};
  for (const key of Object.keys(section) as ProfileKey[]) {
    const variable = name(key);
    if (variable !== undefined) variables[key] = variable;
  }
  return variables;
}

/** NAP's environment variables, as a profile section. */
function napOverrides(env: NodeJS.ProcessEnv): Section {
  const section: Section = {};
  if (nonEmpty(env.NAP_URL) !== undefined) section.url = env.NAP_URL;
  if (nonEmpty(env.NAP_TIMEOUT) !== undefined) section.timeout = env.NAP_TIMEOUT;
  if (nonEmpty(env.NAP_VERIFY) !== undefined) section.verify = env.NAP_VERIFY;
  if (nonEmpty(env.NAP_TOKEN) !== undefined) section.token = env.NAP_TOKEN;
  if (nonEmpty(env.NAP_CLIENT_ID) !== undefined) {
    section.client_id = env.NAP_CLIENT_ID;
    section.client_secret = env.NAP_CLIENT_SECRET ?? '';
  }
  if (nonEmpty(env.NAP_USERNAME) !== undefined) {
    section.username = env.NAP_USERNAME;
    section.password = env.NAP_PASSWORD ?? '';
  }
  return section;
}

/** NAP's variable that holds a secret, when it is set. */
function napSecretSource(key: SecretKey, env: NodeJS.ProcessEnv): SecretSource | undefined {
  const variable = key === 'password' ? 'NAP_PASSWORD' : 'NAP_CLIENT_SECRET';
  return env[variable] === undefined ? undefined : { kind: 'env', variable };
}

function hasCredentialsFromEnv(section: Section): boolean {
  return section.token !== undefined || section.client_id !== undefined || section.username !== undefined;
}

/**
 * The profile a command runs against. `--profile` (or `NAP_PROFILE`) names one; without a name,
 * `NAP_URL` makes one from the environment alone, else the files' `[application] default_profile`,
 * else `default` (ipctl's rule). `NAP_*` variables override the chosen profile's keys; named
 * profiles inherit what `[profile default]` sets, as in ipctl.
 */
export function resolveProfile(config: LoadedConfig, requested: string | undefined, env: NodeJS.ProcessEnv = process.env): Profile {
  const explicit = nonEmpty(requested) ?? nonEmpty(env.NAP_PROFILE);
  const fromEnv = napOverrides(env);
  if (explicit === undefined && fromEnv.url !== undefined) {
    if (!hasCredentialsFromEnv(fromEnv)) {
      throw usage(
        'NAP_URL is set but no credentials: set NAP_USERNAME and NAP_PASSWORD, NAP_CLIENT_ID and NAP_CLIENT_SECRET, or NAP_TOKEN',
      );
    }
    const variables = variablesOf(fromEnv, (key) => NAP_VARIABLES[key]);
    return withSecretSource(profileOf(ENVIRONMENT, fromEnv, ENVIRONMENT, variables), (key) => napSecretSource(key, env));
  }
  const name = explicit ?? config.defaultProfile ?? 'default';
  return namedProfile(config, name, env, fromEnv);
}

/**
 * A profile by name (`copy --from/--to`), with `IPCTL_PROFILE_<NAME>_*` overrides and, for the active one, `NAP_*`.
 * `flag` is the flag that named it (`--to`), for the message when no file has it.
 */
export function namedProfile(
  config: LoadedConfig,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
  extra: Section = {},
  flag?: string,
): Profile {
  const section = config.profiles.get(name);
  if (section === undefined) {
    const where = config.read.length > 0 ? config.read.join(' or ') : `${config.files.ipctl} or ${config.files.nap} (neither exists)`;
    const known = [...config.profiles.keys()];
    const hint = known.length > 0 ? ` (profiles: ${known.join(', ')})` : '';
    // NAP_URL makes the active profile only: a copy's --from/--to names one of the files
    const todo = flag === undefined ? 'name one with --profile, or set NAP_URL and credentials' : `name one of them with ${flag}`;
    throw new CliError(`${flag === undefined ? '' : `${flag} ${name}: `}profile "${name}" is not in ${where}${hint}; ${todo}`, EXIT.USAGE);
  }
  const inherited = name === 'default' ? {} : (config.profiles.get('default') ?? {});
  const overrides = ipctlOverrides(name, env);
  const merged: Section = { ...inherited, ...section, ...overrides };
  const credentialsFromEnv = hasCredentialsFromEnv(extra);
  if (credentialsFromEnv) {
    delete merged.username;
    delete merged.password;
    delete merged.client_id;
    delete merged.client_secret;
    delete merged.token;
  }
  const variables = {
    ...variablesOf(overrides, (key) => `IPCTL_PROFILE_${name.toUpperCase()}_${key.toUpperCase()}`),
    ...variablesOf(extra, (key) => NAP_VARIABLES[key]),
  };
  const profile = profileOf(name, { ...merged, ...extra }, config.read.join(', '), variables);
  return withSecretSource(profile, (key): SecretSource | undefined => {
    if (credentialsFromEnv) return napSecretSource(key, env);
    if (overrides[key] !== undefined) return { kind: 'env', variable: `IPCTL_PROFILE_${name.toUpperCase()}_${key.toUpperCase()}` };
    // the section's own key, else the one it inherits from [profile default]
    const owner = section[key] !== undefined ? name : inherited[key] !== undefined ? 'default' : undefined;
    const file = owner === undefined ? undefined : config.origins.get(owner)?.[key];
    return owner === undefined || file === undefined ? undefined : { kind: 'file', file, profile: owner, key };
  });
}

/** The profile with the source of the secret it logs in with: `client_secret` with a `client_id`, else `password`. */
function withSecretSource(profile: Profile, sourceOf: (key: SecretKey) => SecretSource | undefined): Profile {
  const key = profile.clientId !== undefined ? 'client_secret' : profile.username !== undefined ? 'password' : undefined;
  const source = key === undefined ? undefined : sourceOf(key);
  return source === undefined ? profile : { ...profile, secretSource: source };
}
