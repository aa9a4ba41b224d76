import type { Static } from '@sinclair/typebox';
import { anyObject, arr, bool, closed, embed, int, name, obj, oneOf, open, str, strings, withId } from './common';

/** The members of a prebuilt's metadata besides its name and version. */
function metadataProperties() {
  return {
    description: str(),
    author: str(),
    license: str(),
    repository: obj({ type: str(), url: str() }),
    keywords: strings(),
    hostedRepoId: int(),
  };
}

/** A prebuilt's manifest: what its bundles hold; other members kept as given. */
function manifest() {
  return open({
    bundleName: str(),
    fingerprint: str(),
    createdEpoch: str(),
    artifacts: arr(open({ id: str(), name: str(), type: str(), location: str() })),
  });
}

/** A prebuilt descriptor (the example `data` of group creation, `POST /user-management/groups`); members beyond these are kept as given. */
export const prebuiltDescriptorSchema = withId(
  'nap:schemas/prebuilt-descriptor',
  open({
    metadata: open({ name: str(), version: str(), ...metadataProperties() }),
    manifest: manifest(),
    bundles: arr(
      open({ type: str({ description: 'values that occur: json-forms, workflow, mop-template, service-catalog, golden-config' }) }),
    ),
    readme: str(),
  }),
);
/** A prebuilt descriptor (the example `data` of group creation, `POST /user-management/groups`). */
export type PrebuiltDescriptor = Static<typeof prebuiltDescriptorSchema>;

/** Bundle types NAP installs, each through the service that owns such documents. */
export const BUNDLE_TYPES = [
  'workflow',
  'transformation',
  'mop-template',
  'mop-analytic-template',
  'template',
  'json-forms',
  'forms',
  'automation',
] as const;
/** A bundle type NAP installs. */
export type BundleType = (typeof BUNDLE_TYPES)[number];

/** Metadata of a prebuilt package: name and version required, other members kept as given. */
export const prebuiltMetadataSchema = withId(
  'nap:schemas/prebuilt-metadata',
  open(
    {
      name: name('package name, for example @itentialopensource/cisco-ios-upgrade; one installed prebuilt per name'),
      version: name('semantic version (1.2.3); an upgrade must be newer'),
      ...metadataProperties(),
    },
    ['name', 'version'],
  ),
);

/**
 * A prebuilt package, as `POST /prebuilts/import` takes it and `GET /prebuilts/:id/export` answers it:
 * `metadata` (name and version required), `manifest` (`artifacts` list what the bundles hold),
 * `bundles` (`{ type, data }`: one artifact each, its document in `data`) and a `readme`.
 */
export const prebuiltPackageSchema = withId(
  'nap:schemas/prebuilt-package',
  open(
    {
      metadata: embed(prebuiltMetadataSchema),
      manifest: manifest(),
      bundles: arr(
        open(
          {
            type: name(
              'workflow, transformation, mop-template, mop-analytic-template, template, json-forms, forms or automation; other types (service-catalog, golden-config) are refused by name',
            ),
            data: anyObject("the artifact's document, with its name"),
          },
          ['type', 'data'],
        ),
      ),
      readme: str(),
    },
    ['metadata', 'bundles'],
  ),
);
/** A prebuilt package. */
export type PrebuiltPackage = Static<typeof prebuiltPackageSchema>;

/** An artifact an installed prebuilt created: where it lives (`type`), its id there and its name. */
export const prebuiltComponentSchema = withId(
  'nap:schemas/prebuilt-component',
  obj({ id: str({ description: 'id in the owning service' }), name: str(), type: str({ description: 'the bundle type' }) }, [
    'id',
    'name',
    'type',
  ]),
);
/** An artifact of an installed prebuilt. */
export type PrebuiltComponent = Static<typeof prebuiltComponentSchema>;

/** An installed prebuilt: the package's metadata, manifest and readme, and the artifacts it created. */
export const prebuiltRecordSchema = withId(
  'nap:schemas/prebuilt-record',
  open(
    {
      _id: str(),
      metadata: embed(prebuiltMetadataSchema),
      manifest: open({}),
      readme: str(),
      components: arr(embed(prebuiltComponentSchema)),
      installed: str({ description: 'ISO 8601' }),
      installedBy: str(),
      lastUpdated: str(),
      lastUpdatedBy: str(),
      missingDependencies: arr(
        obj(
          {
            name: str({ description: 'the package name metadata.IAPDependencies gives' }),
            range: str({ description: 'the version range it asks for; empty for any' }),
            kind: oneOf(['application', 'adapter', 'prebuilt']),
            found: str({ description: 'the version found, when it is outside the range' }),
            message: str(),
          },
          ['name', 'range', 'kind', 'message'],
        ),
        {
          description: 'what metadata.IAPDependencies names and the platform lacked when it was installed with options.ignoreDependencies',
        },
      ),
    },
    ['_id', 'metadata', 'components'],
  ),
);
/** An installed prebuilt. */
export type PrebuiltRecord = Static<typeof prebuiltRecordSchema>;

/** One finding of a prebuilt's validation. */
export const prebuiltProblemSchema = withId(
  'nap:schemas/prebuilt-problem',
  obj(
    {
      severity: oneOf(['error', 'warning'], {
        description: 'error: the import would be refused; warning: it would install, but something it needs is missing',
      }),
      member: str({ description: 'where, for example body.prebuilt.bundles[3]' }),
      bundle: int({ minimum: 0 }),
      type: str(),
      name: str(),
      message: str(),
    },
    ['severity', 'member', 'message'],
  ),
);

/** `PUT /prebuilts/import/validation`: whether the import would succeed, and what it would lack. */
export const prebuiltValidationSchema = withId(
  'nap:schemas/prebuilt-validation',
  obj(
    {
      valid: bool({ description: 'the import would install it' }),
      errors: strings({ description: 'why the import would be refused' }),
      warnings: strings({
        description:
          'dependencies neither in the package nor on the platform: workflows, transformations, templates, adapters or integrations its workflows name; with options.ignoreDependencies, what metadata.IAPDependencies names and the platform lacks',
      }),
      problems: arr(embed(prebuiltProblemSchema)),
    },
    ['valid', 'errors', 'warnings', 'problems'],
  ),
);
/** The answer of a prebuilt's validation. */
export type PrebuiltValidation = Static<typeof prebuiltValidationSchema>;

/** Options of an import or upgrade. */
export const prebuiltImportOptionsSchema = withId(
  'nap:schemas/prebuilt-import-options',
  closed({
    overwrite: bool({
      default: false,
      description: 'replace artifacts whose name exists (not those of another prebuilt); false refuses them with 409',
    }),
    ignoreDependencies: bool({
      default: false,
      description:
        'install even though metadata.IAPDependencies names applications, adapters or prebuilts the platform lacks; false refuses them with 409 PREBUILT_DEPENDENCY_MISSING. The installed record lists them in missingDependencies',
    }),
  }),
);
