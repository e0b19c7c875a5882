package projection

import (
	"context"
	"fmt"
	"strings"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// shadowSuffix names a shadow table and its constraints and indexes until
// the swap gives them the live names. One fixed name per table lets a rebuild
// drop what a crashed one left behind.
const shadowSuffix = "_rebuild"

// shadow is a live table's stand-in while a rebuild fills it: the same
// columns, defaults and checks, and the same constraints and indexes under
// names of its own.
type shadow struct {
	live, name    string // schema-qualified
	schema, table string // of the live table
	// constraints are the primary key and unique constraints, made with the
	// table: the projections' ON CONFLICT clauses need them while replaying.
	constraints []constraintDef
	// indexes are the other indexes, built once the replay is done, which is
	// much faster than keeping them up row by row.
	indexes []indexDef
}

type constraintDef struct {
	name string
	def  string // pg_get_constraintdef: "PRIMARY KEY (id)"; names no table
}

type indexDef struct {
	name   string
	unique bool
	using  string // pg_get_indexdef from "USING": method, columns, predicate
}

// describeShadow reads the live table's constraints and indexes.
func describeShadow(ctx context.Context, db *sqlx.DB, live string) (*shadow, error) {
	schema, table, err := splitName(live)
	if err != nil {
		return nil, err
	}
	s := &shadow{live: live, name: live + shadowSuffix, schema: schema, table: table}
	var constraints []struct {
		Name string `db:"conname"`
		Def  string `db:"def"`
	}
	if err := db.SelectContext(ctx, &constraints, `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint
		WHERE conrelid = $1::regclass AND contype IN ('p', 'u', 'x') ORDER BY conname`, live); err != nil {
		return nil, fmt.Errorf("reading the constraints of %s: %w", live, err)
	}
	for _, c := range constraints {
		s.constraints = append(s.constraints, constraintDef{name: c.Name, def: c.Def})
	}
	var indexes []struct {
		Name   string `db:"relname"`
		Unique bool   `db:"indisunique"`
		Def    string `db:"def"`
	}
	if err := db.SelectContext(ctx, &indexes, `SELECT c.relname, i.indisunique, pg_get_indexdef(i.indexrelid) AS def
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
		WHERE i.indrelid = $1::regclass
		  AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.conrelid = i.indrelid)
		ORDER BY c.relname`, live); err != nil {
		return nil, fmt.Errorf("reading the indexes of %s: %w", live, err)
	}
	for _, ix := range indexes {
		at := strings.Index(ix.Def, " USING ")
		if at < 0 {
			return nil, fmt.Errorf("index %s of %s: unexpected definition %q", ix.Name, live, ix.Def)
		}
		s.indexes = append(s.indexes, indexDef{name: ix.Name, unique: ix.Unique, using: ix.Def[at+1:]})
	}
	for _, name := range s.names() {
		if len(name+shadowSuffix) > 63 {
			return nil, fmt.Errorf("projection: %s%s is longer than PostgreSQL's 63-byte names", name, shadowSuffix)
		}
	}
	return s, nil
}

// names are the live names the shadow stands in for: table, constraints, indexes.
func (s *shadow) names() []string {
	out := []string{s.table}
	for _, c := range s.constraints {
		out = append(out, c.name)
	}
	for _, ix := range s.indexes {
		out = append(out, ix.name)
	}
	return out
}

// create makes the empty shadow table with its constraints, replacing one a
// failed rebuild left.
func (s *shadow) create(ctx context.Context, db *sqlx.DB) error {
	stmts := []string{
		`DROP TABLE IF EXISTS ` + s.name,
		`CREATE TABLE ` + s.name + ` (LIKE ` + s.live + ` INCLUDING ALL EXCLUDING INDEXES)`,
	}
	for _, c := range s.constraints {
		stmts = append(stmts, `ALTER TABLE `+s.name+` ADD CONSTRAINT `+pq.QuoteIdentifier(c.name+shadowSuffix)+` `+c.def)
	}
	return s.exec(ctx, db, "creating", stmts)
}

// index builds the other indexes and gathers the statistics the planner
// needs for the list queries from their first minute.
func (s *shadow) index(ctx context.Context, db *sqlx.DB) error {
	var stmts []string
	for _, ix := range s.indexes {
		create := `CREATE INDEX `
		if ix.unique {
			create = `CREATE UNIQUE INDEX `
		}
		stmts = append(stmts, create+pq.QuoteIdentifier(ix.name+shadowSuffix)+` ON `+s.name+` `+ix.using)
	}
	return s.exec(ctx, db, "indexing", append(stmts, `ANALYZE `+s.name))
}

// replace drops the live table and gives the shadow its names, in the swap's
// transaction.
func (s *shadow) replace(ctx context.Context, tx *sqlx.Tx) error {
	stmts := []string{
		`DROP TABLE ` + s.live,
		`ALTER TABLE ` + s.name + ` RENAME TO ` + pq.QuoteIdentifier(s.table),
	}
	for _, c := range s.constraints {
		stmts = append(stmts, `ALTER TABLE `+s.live+` RENAME CONSTRAINT `+pq.QuoteIdentifier(c.name+shadowSuffix)+` TO `+pq.QuoteIdentifier(c.name))
	}
	for _, ix := range s.indexes {
		stmts = append(stmts, `ALTER INDEX `+s.schema+`.`+pq.QuoteIdentifier(ix.name+shadowSuffix)+` RENAME TO `+pq.QuoteIdentifier(ix.name))
	}
	return s.exec(ctx, tx, "swapping in", stmts)
}

// drop removes the shadow table after a failed rebuild.
func (s *shadow) drop(ctx context.Context, db *sqlx.DB) error {
	return s.exec(ctx, db, "dropping", []string{`DROP TABLE IF EXISTS ` + s.name})
}

func (s *shadow) exec(ctx context.Context, e sqlx.ExecerContext, doing string, stmts []string) error {
	for _, stmt := range stmts {
		if _, err := e.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%s %s: %s: %w", doing, s.name, stmt, err)
		}
	}
	return nil
}
