import { z } from 'zod';

/**
 * Slugs are one URL path segment: lower-case letters and digits in runs joined
 * by single hyphens (`about`, `terms-of-use`, `faq-2026`), at most 100 characters.
 * No slashes, so a slug never needs escaping in `/content/static-pages/{slug}`.
 */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_MAX = 100;
/** The slug rule without zod, for the read paths (a slug breaking it is a 404 there). */
export const isSlug = (slug: string) => slug.length <= SLUG_MAX && SLUG_PATTERN.test(slug);
export const Slug = z
  .string()
  .max(SLUG_MAX)
  .regex(SLUG_PATTERN, 'must be lower-case letters, digits and single hyphens');

/** A BCP 47 language tag of the common shape: `en`, `es-ES`, `zh-Hant-TW`, `es-419`. */
export const LANGUAGE_PATTERN =
  /^[A-Za-z]{2,3}(?:-(?:[A-Za-z]{4}|[A-Za-z]{2}|\d{3}))?(?:-(?:[A-Za-z]{2}|\d{3}))?$/;

/** `es-es` → `es-ES`, `ZH-hant-tw` → `zh-Hant-TW`: one spelling per language, so slug+language is unique. */
export function canonicalLanguage(tag: string): string {
  return tag
    .split('-')
    .map((part, index) => {
      if (index === 0) return part.toLowerCase();
      if (part.length === 4) return part[0]!.toUpperCase() + part.slice(1).toLowerCase();
      return part.toUpperCase();
    })
    .join('-');
}

/** Validated here, canonicalized where stored or compared (`canonicalLanguage`). */
export const LanguageCode = z
  .string()
  .regex(LANGUAGE_PATTERN, 'must be a language code such as en or es-ES');

/** `accounting` and `seoMetaData`: free-form JSON objects, at most 16 KiB each once serialized. */
export const JSON_OBJECT_MAX = 16 * 1024;
const JsonObject = z
  .record(z.string(), z.unknown())
  .refine((value) => JSON.stringify(value).length <= JSON_OBJECT_MAX, {
    message: `The object is more than ${JSON_OBJECT_MAX} characters long once serialized`,
    params: { rule: 'objectTooLarge' },
  });

/** A static page as GET /content/static-pages/{slug} answers it: exactly these fields. */
export const StaticPage = z.object({
  content: z.string(),
  accounting: z.record(z.string(), z.unknown()),
  title: z.string(),
  metaTitle: z.string(),
  metaDescription: z.string(),
  language: z.string(),
  category: z.string(),
  slug: z.string(),
  group: z.string(),
  seoMetaData: z.record(z.string(), z.unknown()),
});
export type StaticPage = z.infer<typeof StaticPage>;

/** One element of the static page list; `group` is "" when none. */
export const StaticPageSummary = z.object({
  id: z.number().int(),
  slug: z.string(),
  locale: z.string(),
  group: z.string(),
});
export type StaticPageSummary = z.infer<typeof StaticPageSummary>;

export const StaticPageList = z.array(StaticPageSummary);

/**
 * `?published=` of the two reads: `true` (the default) the published pages
 * only, as anyone reads them; `false` the unpublished ones, `all` both, for
 * employees only.
 */
export const PublishedFilter = z
  .enum(['true', 'false', 'all'])
  .describe(
    'true (default): published pages only. false: unpublished only; all: both (employees only: 401 / 403 otherwise)',
  );
export type PublishedFilter = z.infer<typeof PublishedFilter>;

/** One element of the list asked with `?published=false` or `all`: with its state. */
export const StaticPageEntry = StaticPageSummary.extend({ published: z.boolean() });
export type StaticPageEntry = z.infer<typeof StaticPageEntry>;
export const StaticPageEntryList = z.array(StaticPageEntry);

const CanonicalLanguage = LanguageCode.transform(canonicalLanguage);

const fields = {
  language: CanonicalLanguage,
  title: z.string().min(1).max(200),
  content: z
    .string()
    .min(1)
    .max(512 * 1024),
  metaTitle: z.string().max(200).default(''),
  metaDescription: z.string().max(500).default(''),
  category: z.string().max(100).default(''),
  // "" when none, as the reads answer it; null is accepted as "none" too.
  group: z
    .string()
    .max(100)
    .nullish()
    .transform((value) => value ?? ''),
  accounting: JsonObject.default({}),
  seoMetaData: JsonObject.default({}),
  published: z.boolean(),
};

/**
 * Body of `PUT /content/static-pages/{slug}`: a full replacement, so omitted
 * optional fields reset to their defaults. `slug` may be echoed back from a
 * GET but must then equal the path's slug.
 */
export const StaticPageInput = z.strictObject({ ...fields, slug: Slug.optional() });
export type StaticPageInput = z.infer<typeof StaticPageInput>;

/** One file of `npm run pages:import`: the PUT body with its slug required. */
export const StaticPageFile = z.strictObject({ ...fields, slug: Slug });
export type StaticPageFile = z.infer<typeof StaticPageFile>;

/** GET accepts any path segment: a slug that cannot exist is a 404 naming it, not a 400. */
export const AnySlugParams = z.object({ slug: z.string() });
export const PageQuery = z.object({
  language: LanguageCode.optional(),
  published: PublishedFilter.optional(),
});
export const ListQuery = z.object({ published: PublishedFilter.optional() });
export const DeleteQuery = z.object({ language: CanonicalLanguage });
/**
 * DELETE's query as the docs show it; checked with `DeleteQuery` only after
 * the credential (a declared schema would be validated before auth).
 */
export const DeleteQueryDoc = z.object({
  language: z
    .string()
    .max(35)
    .optional()
    .describe('Required: the language version to delete (en, es-ES)'),
});
