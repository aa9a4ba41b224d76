// Prebuilt repositories: their configurations in the active profile.
import type { AdminContext, AuditSink } from '../context';
import type { RepositoryConfigs } from '../domain/repository-configs';
import { activeProfile, replaceProfile } from './profiles';

/** The prebuilt repository configurations of the active profile, tokens opened. */
export async function repositoryConfigs(svc: AdminContext): Promise<RepositoryConfigs> {
  return { ...((await activeProfile(svc)).prebuiltProps?.repoConfigs ?? {}) };
}

/** Replaces the prebuilt repository configurations of the active profile. */
export async function saveRepositoryConfigs(
  svc: AdminContext,
  repoConfigs: RepositoryConfigs,
  by: string,
  audit?: AuditSink,
): Promise<void> {
  const profile = await activeProfile(svc);
  await replaceProfile(svc, profile.id, { ...profile, prebuiltProps: { ...profile.prebuiltProps, repoConfigs } }, by, audit);
}
