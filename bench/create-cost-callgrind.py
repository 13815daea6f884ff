"""
A create's SQLite work counted in instructions (deterministic on a shared
machine): run under `valgrind --tool=callgrind --collect-atstart=no
--toggle-collect=sqlite3_step`, so only statement execution is counted
(triggers, indexes, FTS5, COMMIT included; Python's own work not). Writes the
statements the service writes for a group commit of BATCH creates (units 1-30
in turn), BATCHES times, on a copy of a seeded file prepared by --prepare.

  python3 bench/create-cost-callgrind.py --prepare VARIANT seeded.db copy.db
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect=sqlite3_step \\
    python3 bench/create-cost-callgrind.py VARIANT copy.db

VARIANT: before | after | after-<part removed>, see VARIANTS.
"""
import shutil
import sqlite3
import sys

BATCH, BATCHES = 16, 50
PER_ROW_LOG = """CREATE TRIGGER cache_log_units_insert AFTER INSERT ON units BEGIN
  INSERT INTO cache_changes (topic, key) VALUES ('unit', new.property_id); END"""
MARKER_LOG = """CREATE TRIGGER cache_log_units_insert AFTER INSERT ON units
WHEN (SELECT topic = 'unit' AND key = '' FROM cache_changes ORDER BY seq DESC LIMIT 1) IS NOT 1 BEGIN
  INSERT INTO cache_changes (topic, key) VALUES ('unit', new.property_id); END"""
PROPERTY_COLUMNS = """id, type, owner_id, address_line1, address_line2, city, city_id,
  neighbourhood_id, postal_code, country, latitude, longitude, address_search, total_units,
  rentable_units, published_units, units_counter, verified, year_of_construction, is_visitable,
  source, published, archived, created_at, updated_at"""
RECORD = """SELECT id, type, owner_id, address_line1, address_line2, city, city_id, neighbourhood_id,
  postal_code, country, latitude, longitude, total_units, rentable_units, published_units, verified,
  year_of_construction, is_visitable, source, published, archived, created_at, updated_at
  FROM properties p WHERE p.id IN (SELECT value FROM json_each(?))"""
INDEXES = ['owner', 'city_type', 'type', 'total_units', 'rentable_units', 'published', 'archived']
# What each variant writes: the unit log (per row, marker, none), the unit statements
# (chunks, one), and how far the write goes (property, units, read back, events).
VARIANTS = {
    'before': dict(log='per-row', units='chunks'),
    'after': {},
    'after-property-only': dict(upto='property'),
    'after-units': dict(upto='units'),
    'after-read-back': dict(upto='read'),
    'after-no-fts': dict(drop_from_trigger='property_address_search'),
    'after-no-counts': dict(drop_from_trigger='property_counts'),
    'after-no-property-log': dict(drop='cache_log_properties_insert'),
    'after-no-unit-log': dict(log='none'),
    'after-no-secondary-indexes': dict(drop_indexes=True),
}


def prepare(variant, source, target):
    shutil.copyfile(source, target)
    v = VARIANTS[variant]
    db = sqlite3.connect(target, isolation_level=None)
    db.execute('PRAGMA journal_mode = WAL')
    sql = lambda name: db.execute('SELECT sql FROM sqlite_master WHERE name = ?', (name,)).fetchone()[0]
    # The file may have been seeded before or after the marker trigger: each variant sets its own.
    db.execute('DROP TRIGGER cache_log_units_insert')
    log = v.get('log', 'marker')
    if log != 'none':
        db.execute(PER_ROW_LOG if log == 'per-row' else MARKER_LOG)
    if 'drop' in v:
        db.execute(f"DROP TRIGGER {v['drop']}")
    if 'drop_from_trigger' in v:
        text = sql('properties_after_insert').split('\n')
        at = next(i for i, line in enumerate(text) if v['drop_from_trigger'] in line)
        del text[at : at + (1 if 'search' in v['drop_from_trigger'] else 3)]
        db.execute('DROP TRIGGER properties_after_insert')
        db.execute('\n'.join(text))
    if v.get('drop_indexes'):
        for name in INDEXES:
            db.execute(f'DROP INDEX properties_{name}_idx')
    db.execute('PRAGMA wal_checkpoint(TRUNCATE)')
    db.close()


def chunks(n, by_powers):
    if not by_powers:
        return [n]
    out = []
    for size in (64, 32, 16, 8, 4, 2, 1):
        while n >= size:
            out.append(size)
            n -= size
    return out


def run(variant, path):
    v = VARIANTS[variant]
    upto = v.get('upto', 'events')
    db = sqlite3.connect(path, isolation_level=None, cached_statements=512)
    for pragma in ('journal_mode = WAL', 'synchronous = NORMAL', 'cache_size = -65536', 'foreign_keys = ON'):
        db.execute(f'PRAGMA {pragma}')
    n = 0
    for batch in range(BATCHES):
        db.execute('BEGIN IMMEDIATE')
        db.execute('SAVEPOINT group_commit')
        props, units, ids = [], [], []
        for _ in range(BATCH):
            n += 1
            pid = f'0192{n:08x}-0000-7000-8000-{n:012x}'
            total = 1 + n % 30
            address = f'calle de la prueba {n}\x01\x01somewhere\x01{10000 + n % 89999}'
            props += [pid, 'apartment', f'owner-{n % 997}', f'Calle de la Prueba {n}', None, 'Somewhere',
                      'madrid', None, str(10000 + n % 89999), 'ES', 40.4, -3.7, address, total,
                      max(1, total >> 1), 0, total, 0, None, 0, 'outbound', 0, 0, 1795000000000 + n,
                      1795000000000 + n]
            for u in range(total):
                units += [f'0193{n:08x}-{u:04x}-7000-8000-{n:012x}', pid, 1 if u < total >> 1 else 0, 0,
                          1795000000000 + n, 1795000000000 + n]
            ids.append(pid)
        db.execute(f'INSERT INTO properties ({PROPERTY_COLUMNS}) VALUES ' + ', '.join(['(' + ', '.join('?' * 25) + ')'] * BATCH), props)
        if upto != 'property':
            if v.get('log', 'marker') == 'marker':
                db.execute("INSERT INTO cache_changes (topic, key) VALUES ('unit', '')")
            at = 0
            for size in chunks(len(units) // 6, v.get('units') == 'chunks'):
                db.execute('INSERT INTO units (id, property_id, rentable, published, created_at, updated_at) VALUES '
                           + ', '.join(['(?, ?, ?, ?, ?, ?)'] * size), units[at : at + size * 6])
                at += size * 6
            if v.get('log', 'marker') == 'marker':
                db.execute('INSERT INTO cache_changes (topic, key) VALUES ' + ', '.join(["('unit', ?)"] * BATCH), ids)
        if upto in ('read', 'events'):
            import json
            rows = db.execute(RECORD, (json.dumps(ids),)).fetchall()
        if upto == 'events':
            params = []
            for row in rows:
                params += ['property.created', row[21], 'property', row[0], row[2], json.dumps(row)]
            db.execute('INSERT INTO events (type, occurred_at, resource_kind, resource_id, owner_id, data) VALUES '
                       + ', '.join(['(?, ?, ?, ?, ?, ?)'] * len(rows)), params)
        db.execute('RELEASE group_commit')
        db.execute('COMMIT')
    db.close()


if sys.argv[1] == '--prepare':
    prepare(*sys.argv[2:5])
else:
    run(sys.argv[1], sys.argv[2])
