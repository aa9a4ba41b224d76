import type { JsonSchema } from '../catalog/types';
import { arr, int, obj, str, strings } from './common';

/** A prebuilt descriptor (the example `data` of group creation, operation 10). */
export interface PrebuiltDescriptor {
  metadata?: {
    name?: string;
    version?: string;
    description?: string;
    author?: string;
    license?: string;
    repository?: { type?: string; url?: string };
    keywords?: string[];
    hostedRepoId?: number;
    [member: string]: unknown;
  };
  manifest?: {
    bundleName?: string;
    fingerprint?: string;
    createdEpoch?: string;
    artifacts?: { id?: string; name?: string; type?: string; location?: string; [member: string]: unknown }[];
    [member: string]: unknown;
  };
  /** Bundle types that occur: json-forms, workflow, mop-template, service-catalog, golden-config. */
  bundles?: { type?: string; [member: string]: unknown }[];
  readme?: string;
  [member: string]: unknown;
}

/** Prebuilt descriptor. */
export const prebuiltDescriptorSchema: JsonSchema = {
  $id: 'nap:schemas/prebuilt-descriptor',
  ...obj({
    metadata: obj({
      name: str(),
      version: str(),
      description: str(),
      author: str(),
      license: str(),
      repository: obj({ type: str(), url: str() }),
      keywords: strings(),
      hostedRepoId: int(),
    }),
    manifest: obj({
      bundleName: str(),
      fingerprint: str(),
      createdEpoch: str(),
      artifacts: arr(obj({ id: str(), name: str(), type: str(), location: str() })),
    }),
    bundles: arr(obj({ type: str({ description: 'values that occur: json-forms, workflow, mop-template, service-catalog, golden-config' }) })),
    readme: str(),
  }),
};
