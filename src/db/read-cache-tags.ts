import type { Change } from '@/db/change-feed';

/** Most tags remembered as changed; past it the cache drops every value and starts over. */
const MAX_TAGS = 200_000;

/**
 * What each write of the change feed can alter, as tags with the tick at
 * which they last changed: a property its id, owner, city × type, city and
 * type (and `P`, any property); a unit `U`; a unit feature its name (and
 * `F`); a transaction its customer (and `X`); a static page its slug (and
 * `S`). A cached value is valid while none of its tags changed after it was
 * read (`ReadCache`; the tags of each answer are listed in
 * docs/performance.md).
 */
export class ChangedTags {
  readonly #changedAt = new Map<string, number>();

  /**
   * Marks what `change` can alter as changed at `tick`. False when the cache
   * must drop everything instead: a topic it does not know, or too many tags.
   */
  apply({ topic, key }: Change, tick: number): boolean {
    if (this.#changedAt.size > MAX_TAGS) return false;
    const touch = (tag: string) => this.#changedAt.set(tag, tick);
    if (topic === 'property') {
      touch('P');
      const fields = key.split('\u001f');
      for (let i = 0; i + 3 < fields.length; i += 4) {
        const [id, owner, city, type] = fields.slice(i, i + 4);
        touch(`p:${id}`);
        touch(`o:${owner}`);
        touch(`c:${city}`);
        touch(`ct:${city}|${type}`);
        touch(`t:${type}`);
      }
    } else if (topic === 'unit') touch('U');
    else if (topic === 'feature') {
      touch('F');
      touch(`f:${key}`);
    } else if (topic === 'transaction') {
      touch('X');
      touch(`x:${key}`);
    } else if (topic === 'page') {
      touch('S');
      touch(`s:${key}`);
    } else return false;
    return true;
  }

  /** Whether one of `tags` changed after tick `at`. */
  changedAfter(tags: readonly string[], at: number): boolean {
    for (const tag of tags) if ((this.#changedAt.get(tag) ?? 0) > at) return true;
    return false;
  }

  clear(): void {
    this.#changedAt.clear();
  }
}
