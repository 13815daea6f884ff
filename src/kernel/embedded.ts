/**
 * Files a single-file build carries inside itself (scripts/build.ts fills
 * this in before the service starts). Empty when running from the source
 * tree, where the same files are read from disk.
 */
export interface Embedded {
  /** `migrations/meta/_journal.json` and each `<tag>.sql` of it, as text. */
  migrations?: { journal: string; sql: Readonly<Record<string, string>> };
  /** The account page: `account.html`, `account.css` and the bundled `app.js`. */
  accountAssets?: Readonly<Record<string, string>>;
  /** The other pages' files (src/web/page-assets.json), by page, then by name. */
  pageAssets?: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export const embedded: Embedded = {};
