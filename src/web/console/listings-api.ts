/**
 * The listings API as the properties pages read it: the shapes of its
 * answers are the TypeScript client's (generated from the API's schemas),
 * and the values its list query accepts (cities, types, sort fields) are
 * read from the service's own OpenAPI document, so that the API stays the
 * one place they are written.
 */
export type {
  AdditionalData,
  MultiListingUnit,
  NeighbourhoodList,
  Property,
  PropertyKeysetPage,
  Unit,
  UnitList,
} from '../../../client/src/schema-types';

/** How a properties view is mounted (properties.ts). */
export interface PropertiesOptions {
  /** The hash the view answers to: `#<base>` the list, `#<base>/<id>` a property. */
  base: string;
  /** A customer's own id: it owns what it creates, and sees no owner controls. */
  customerId?: string;
  /** The heading level of the view's title (the console's sections are h2). */
  level?: 'h2' | 'h3';
}

export const LISTINGS = '/listings';
export const propertyPath = (id: string) => `${LISTINGS}/properties/${encodeURIComponent(id)}`;

export interface Vocabulary {
  cityIds: string[];
  types: string[];
  sortFields: string[];
}

interface Parameter {
  name: string;
  schema?: { enum?: string[]; pattern?: string; items?: { enum?: string[] } };
}

let vocabulary: Promise<Vocabulary> | undefined;

/** The list query's accepted values, from `/docs/json` (read once per page load). */
export function vocabularyOf(): Promise<Vocabulary> {
  vocabulary ??= fetch('/docs/json', { headers: { accept: 'application/json' } })
    .then((response) => {
      if (!response.ok) throw new Error(`GET /docs/json: ${response.status}`);
      return response.json() as Promise<{
        paths: Record<string, { get?: { parameters?: Parameter[] } }>;
      }>;
    })
    .then((document) => {
      const parameters = document.paths[`${LISTINGS}/properties`]?.get?.parameters ?? [];
      const schemaOf = (name: string) => parameters.find((p) => p.name === name)?.schema;
      // The sort pattern is `^-?(a|b|…)(,-?(a|b|…))*$`: its first group lists the fields.
      const sortGroup = /\(([^()]+)\)/.exec(schemaOf('sort')?.pattern ?? '');
      return {
        cityIds: schemaOf('cityIds')?.items?.enum ?? [],
        types: schemaOf('type')?.enum ?? [],
        sortFields: sortGroup?.[1]?.split('|') ?? ['_id'],
      };
    });
  vocabulary.catch(() => {
    vocabulary = undefined;
  });
  return vocabulary;
}
