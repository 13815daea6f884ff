-- The reference implementation's tables: what a developer would write for
-- these endpoints, with the usual indexes (the primary keys, the list
-- filters a listing service needs, units by property).
CREATE TABLE IF NOT EXISTS cities (
  id TEXT PRIMARY KEY,
  country TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS properties (
  id TEXT PRIMARY KEY,
  type TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  address_line1 TEXT NOT NULL,
  address_line2 TEXT,
  city TEXT NOT NULL,
  city_id TEXT NOT NULL REFERENCES cities (id),
  neighbourhood_id TEXT,
  postal_code TEXT NOT NULL,
  country TEXT NOT NULL,
  latitude REAL NOT NULL,
  longitude REAL NOT NULL,
  total_units INTEGER NOT NULL,
  rentable_units INTEGER NOT NULL,
  published_units INTEGER NOT NULL DEFAULT 0,
  verified INTEGER NOT NULL DEFAULT 0,
  year_of_construction INTEGER,
  is_visitable INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL,
  published INTEGER NOT NULL DEFAULT 0,
  archived INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS units (
  id TEXT PRIMARY KEY,
  property_id TEXT NOT NULL REFERENCES properties (id),
  rentable INTEGER NOT NULL,
  published INTEGER NOT NULL DEFAULT 0,
  deleted_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS properties_city_type_idx ON properties (city_id, type);
CREATE INDEX IF NOT EXISTS properties_owner_idx ON properties (owner_id);
CREATE INDEX IF NOT EXISTS units_property_idx ON units (property_id);
