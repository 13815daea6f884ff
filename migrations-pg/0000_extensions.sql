-- The address substring search uses trigram GIN indexes (properties_address_search_trgm_idx).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
