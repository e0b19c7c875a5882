package adapters

import (
	"context"
	"sync"

	"github.com/jmoiron/sqlx"
)

// prepared is one of the delivery worker's hot statements, prepared on each
// pooled connection the first time it runs there: PostgreSQL parses and
// plans it once per connection instead of on every claim and record, where
// planning cost about as much as running it. Statements prepared this way
// name their result columns, never `*`, so a migration that adds a column
// does not change what a prepared statement returns.
type prepared struct {
	query string

	mu   sync.Mutex
	stmt *sqlx.Stmt
}

func (p *prepared) on(ctx context.Context, db *sqlx.DB) (*sqlx.Stmt, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stmt == nil {
		stmt, err := db.PreparexContext(ctx, p.query)
		if err != nil {
			return nil, err
		}
		p.stmt = stmt
	}
	return p.stmt, nil
}
