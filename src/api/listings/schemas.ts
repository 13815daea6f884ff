import { withLocation } from '../docs/headers';
import { NoBody } from '../responses';

export { created, NoBody, noContent, problems } from '../responses';

/** A 201 of a create: no body, the new resource's path in `Location`. */
export const Created = withLocation(NoBody, 'The path of the new resource');
