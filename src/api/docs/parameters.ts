type Json = Record<string, unknown>;

const ARRAY_ENCODINGS =
  'Written `k=a&k=b` (form, exploded); `k[]=a`, `k[0]=a` and `k=a,b` are read the same.';

/** The schema's own description, then how the parameter is written. */
const sentence = (description: unknown, encoding: string) =>
  description ? `${String(description).replace(/\.?$/, '.')} ${encoding}` : encoding;

/**
 * How list parameters are written in the URL: an array as repeated keys
 * (`style: form, explode: true`), an array of criteria as `name[i][part]`
 * (`style: deepObject`, schema keyed by index). The service also reads the
 * other encodings named in each description (docs/listings.md). A parameter
 * with a default is optional.
 */
export function describeQueryEncodings(operation: { parameters?: Json[] }): void {
  for (const parameter of operation.parameters ?? []) {
    if (parameter.in !== 'query') continue;
    const schema = (parameter.schema ?? {}) as Json;
    // A parameter with a default may be left out (the schema generator marks it required).
    if (schema.default !== undefined) parameter.required = false;
    if (schema.type === 'array') {
      const items = (schema.items ?? {}) as Json;
      if (items.type === 'object') {
        parameter.style = 'deepObject';
        parameter.explode = true;
        parameter.schema = {
          type: 'object',
          description: schema.description,
          propertyNames: { pattern: '^\\d{1,3}$' },
          additionalProperties: items,
          maxProperties: schema.maxItems,
        };
        // Swagger UI's try-it writes one level of a deepObject (a nested criterion
        // goes out as JSON, which the service refuses) and, with no example, fills
        // in `additionalProp1`: an empty example sends no criteria.
        parameter.example = {};
        const written = `Written ${String(parameter.name)}[i][part]=value, i from 0.`;
        parameter.description ??= sentence(schema.description, written);
        continue;
      }
      parameter.style = 'form';
      parameter.explode = true;
      parameter.description ??= sentence(schema.description, ARRAY_ENCODINGS);
    }
    if (schema.description && parameter.description === undefined)
      parameter.description = schema.description;
  }
}
