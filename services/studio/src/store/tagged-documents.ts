import type { TagReferenceType } from '@nap/contracts';
import type { Logger } from '@nap/telemetry';
import type { Store } from '@nap/store';
import { NamedDocuments } from './documents';
import type { DocumentKind, NamedDoc } from './documents';
import type { TagStore } from './tags';

/**
 * Named documents that can carry tags: deleting one, by any route (its own, a project's, an import
 * rolled back), removes its tag references right after. A crash between the two leaves references
 * of a document that is gone, which the next start removes (`repairTags`); nothing answers them
 * meanwhile but `getTagsByReference` for that id, which is nobody's document any more.
 */
export class TaggedDocuments<T extends NamedDoc> extends NamedDocuments<T> {
  constructor(
    store: Store,
    kind: DocumentKind,
    private readonly tags: TagStore,
    readonly tagType: TagReferenceType,
    private readonly log: Logger,
  ) {
    super(store, kind);
  }

  override async delete(id: string): Promise<T> {
    const gone = await super.delete(id);
    await this.forgetTags(id);
    return gone;
  }

  override async deleteIfPresent(id: string): Promise<void> {
    await super.deleteIfPresent(id);
    await this.forgetTags(id);
  }

  private async forgetTags(id: string): Promise<void> {
    // the document is gone already: a failure here must not answer that it was not deleted
    await this.tags.forget(this.tagType, id).catch((err: unknown) => {
      this.log.warn(
        { err, type: this.tagType, id },
        'The tag references of a deleted document could not be removed; the next start removes them',
      );
    });
  }
}
