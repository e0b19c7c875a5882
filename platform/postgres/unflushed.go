package postgres

// Unflushed is a WITH item that makes the one statement's transaction commit
// without waiting for its WAL to reach the disk (synchronous_commit off for
// that transaction only): for writes whose loss in a crash costs nothing a
// reader relies on, and which would otherwise hold a hot row's lock through
// a disk flush. The statement must read it (CROSS JOIN unflushed), or
// PostgreSQL never evaluates it.
const Unflushed = `unflushed AS (SELECT set_config('synchronous_commit', 'off', true))`
