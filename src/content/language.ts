import { DEFAULT_LANGUAGE } from '@/content/representation';

/** At most this many Accept-Language entries are considered (a header is client-controlled). */
const MAX_ACCEPT_ENTRIES = 16;
const RANGE = /^[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*$/;
const QUALITY = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i;

/**
 * The language ranges of an Accept-Language header (RFC 9110 §12.5.4), best
 * first: by q-value, then in the order given. Entries with q=0, `*` and
 * malformed entries are dropped rather than refused (a header is a hint).
 */
export function parseAcceptLanguage(header: string | null): string[] {
  if (!header) return [];
  const ranges: { tag: string; q: number; order: number }[] = [];
  for (const [order, entry] of header.split(',').slice(0, MAX_ACCEPT_ENTRIES).entries()) {
    const [tag = '', ...params] = entry.split(';').map((part) => part.trim());
    if (!RANGE.test(tag)) continue;
    let q = 1;
    for (const param of params) {
      if (!/^q=/i.test(param)) continue;
      const match = QUALITY.exec(param);
      q = match ? Number(match[1]) : Number.NaN;
    }
    if (q > 0) ranges.push({ tag: tag.toLowerCase(), q, order });
  }
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order).map((range) => range.tag);
}

export interface LanguageVariant {
  /** Canonical tag as stored (`es-ES`). */
  language: string;
}

/**
 * The variant for one wanted tag: the exact tag, else its shorter prefixes
 * (`es-ES` → `es`, RFC 4647 lookup), else any variant of the same primary
 * language (`es` finds `es-MX`), lowest id first.
 */
function matchTag<T extends LanguageVariant>(
  variants: readonly T[],
  wanted: string,
): T | undefined {
  const lower = wanted.toLowerCase();
  let prefix = lower;
  for (;;) {
    const exact = variants.find((variant) => variant.language.toLowerCase() === prefix);
    if (exact) return exact;
    const cut = prefix.lastIndexOf('-');
    if (cut < 0) break;
    prefix = prefix.slice(0, cut);
  }
  return variants.find((variant) => variant.language.toLowerCase().split('-')[0] === prefix);
}

const defaults = new WeakMap<readonly LanguageVariant[], LanguageVariant | undefined>();

/** The choice without `?language=` or Accept-Language, worked out once per set of variants. */
function defaultVariant<T extends LanguageVariant>(variants: readonly T[]): T | undefined {
  if (!defaults.has(variants)) {
    defaults.set(variants, matchTag(variants, DEFAULT_LANGUAGE) ?? variants[0]);
  }
  return defaults.get(variants) as T | undefined;
}

/**
 * The language choice among the published variants of one slug
 * (sorted by id): `?language=`, then Accept-Language by q-value, then the
 * default language, then any (the lowest id). A step that finds nothing
 * falls through to the next, so a request never 404s while some language exists.
 */
export function chooseVariant<T extends LanguageVariant>(
  variants: readonly T[],
  requested: string | undefined,
  acceptLanguage: string | null,
): T | undefined {
  // One variant is the answer whatever the steps say; skip the header parsing.
  if (variants.length <= 1) return variants[0];
  if (!requested && !acceptLanguage) return defaultVariant(variants);
  const wanted = [
    ...(requested ? [requested] : []),
    ...parseAcceptLanguage(acceptLanguage),
    DEFAULT_LANGUAGE,
  ];
  for (const tag of wanted) {
    const found = matchTag(variants, tag);
    if (found) return found;
  }
  return variants[0];
}
