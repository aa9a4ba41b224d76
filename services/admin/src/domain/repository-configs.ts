import path from 'node:path';
import { AppError, SECRET_MASK, isReservedKey } from '@nap/contracts';
import type { BodyOf, RepositoryConfig, ResponseOf } from '@nap/contracts';
import { invalidMember } from './validation-error';

/**
 * Prebuilt repositories: configurations kept in the active profile (`prebuiltProps.repoConfigs`,
 * tokens sealed with the profile) and the packages they offer. A `local` repository is a directory
 * of package files; a `gitlab` repository is a group whose projects carry a `package.json`.
 */

/** A repository configuration as the routes answer it: its name, never its token. */
export type RepositoryConfigView = ResponseOf<'admin.getRepositoryConfigs'>['results'][number];
/** One package a repository offers. */
export type RepositoryPrebuilt = ResponseOf<'admin.getRepositoryPrebuilts'>['results'][number];
/** One package a repository offers, before the installed version is looked up. */
export type OfferedPrebuilt = Omit<RepositoryPrebuilt, 'installed'>;
/** The configurations of the active profile by name. */
export type RepositoryConfigs = Record<string, RepositoryConfig>;

type NewConfig = BodyOf<'admin.createRepositoryConfig'>['config'];
type ConfigPatch = BodyOf<'admin.updateRepositoryConfig'>['config'];

/** The configurations with a new one added; its name free and valid, its token given (not `********`). */
export function withNewConfig(configs: RepositoryConfigs, input: NewConfig): { configs: RepositoryConfigs; added: RepositoryConfigView } {
  const { name, ...config } = input;
  checkName(name);
  if (Object.hasOwn(configs, name))
    throw new AppError('REPOSITORY_CONFIG_ALREADY_EXISTS', `A prebuilt repository named "${name}" exists in the active profile`);
  if (config.credentials?.token === SECRET_MASK)
    throw invalidMember('body.config.credentials.token', `is ${SECRET_MASK}; give the token itself`);
  const stored = checked({ enabled: true, ...config }, 'body.config');
  return { configs: { ...configs, [name]: stored }, added: configView(name, stored) };
}

/** The configurations with one changed by a patch; a token sent back as `********` keeps the stored one. */
export function withPatchedConfig(
  configs: RepositoryConfigs,
  name: string,
  patch: ConfigPatch,
): { configs: RepositoryConfigs; changed: RepositoryConfigView } {
  const current = configOf(configs, name);
  const token = patch.credentials?.token;
  const credentials = token === SECRET_MASK ? current.credentials : (patch.credentials ?? current.credentials);
  const next = checked({ ...current, ...patch, ...(credentials !== undefined ? { credentials } : {}) }, 'body.config');
  return { configs: { ...configs, [name]: next }, changed: configView(name, next) };
}

/** The configurations without one; 404 when there is none of that name. */
export function withoutConfig(configs: RepositoryConfigs, name: string): RepositoryConfigs {
  configOf(configs, name);
  const { [name]: _gone, ...rest } = configs;
  return rest;
}

/** The configuration of that name; 404 naming the configurations there are. */
export function configOf(configs: RepositoryConfigs, name: string): RepositoryConfig {
  const config = Object.hasOwn(configs, name) ? configs[name] : undefined;
  if (config === undefined)
    throw new AppError(
      'REPOSITORY_CONFIG_NOT_FOUND',
      `No prebuilt repository named "${name}" in the active profile${Object.keys(configs).length > 0 ? ` (repositories: ${Object.keys(configs).sort().join(', ')})` : ''}`,
    );
  return config;
}

/** A configuration as answered: enabled unless set otherwise, a token only as `********`. */
export function configView(name: string, config: RepositoryConfig): RepositoryConfigView {
  const { credentials, ...rest } = config;
  return {
    name,
    ...rest,
    enabled: config.enabled !== false,
    ...(credentials?.token !== undefined ? { credentials: { token: SECRET_MASK } } : {}),
  };
}

/** Names are keys of the profile document: no dots, no leading `$`, nothing an object inherits. */
function checkName(name: string): void {
  if (name.includes('.') || name.startsWith('$') || isReservedKey(name)) {
    throw invalidMember('body.config.name', `"${name}" cannot name a repository: use letters, digits, - and _ (no dots, no leading $)`);
  }
}

/** The members each type needs: an absolute directory for `local`, a hostname for `gitlab`. */
function checked(config: RepositoryConfig, at: string): RepositoryConfig {
  if (config.type === 'local' && !path.isAbsolute(config.path))
    throw invalidMember(`${at}.path`, `"${config.path}" is not an absolute directory`);
  if (config.type === 'gitlab' && (config.hostname === undefined || config.hostname === ''))
    throw invalidMember(`${at}.hostname`, 'is required for a gitlab repository (for example gitlab.com)');
  return config;
}
