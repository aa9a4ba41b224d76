import type { Static } from '@sinclair/typebox';
import { arr, int, obj, open, str, strings, withId } from './common';

/** A prebuilt descriptor (the example `data` of group creation, operation 10); members beyond these are kept as given. */
export const prebuiltDescriptorSchema = withId(
  'nap:schemas/prebuilt-descriptor',
  open({
    metadata: open({
      name: str(),
      version: str(),
      description: str(),
      author: str(),
      license: str(),
      repository: obj({ type: str(), url: str() }),
      keywords: strings(),
      hostedRepoId: int(),
    }),
    manifest: open({
      bundleName: str(),
      fingerprint: str(),
      createdEpoch: str(),
      artifacts: arr(open({ id: str(), name: str(), type: str(), location: str() })),
    }),
    bundles: arr(open({ type: str({ description: 'values that occur: json-forms, workflow, mop-template, service-catalog, golden-config' }) })),
    readme: str(),
  }),
);
/** A prebuilt descriptor (the example `data` of group creation, operation 10). */
export type PrebuiltDescriptor = Static<typeof prebuiltDescriptorSchema>;
