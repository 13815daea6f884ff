import { columnsOf } from '@/db/columns';
import { properties } from '@/db/sqlite/schema';
import { UNRENDERED_COLUMNS } from './representation';

/** The columns a Property is rendered from, as SQLite returns them: from the table, once. */
export const PROPERTY_COLUMNS = columnsOf(properties, UNRENDERED_COLUMNS)
  .map(({ name }) => `p.${name}`)
  .join(', ');

/** One property by id, as a PropertyRecord. */
export const PROPERTY_BY_ID = `SELECT ${PROPERTY_COLUMNS} FROM properties p WHERE p.id = ?`;
