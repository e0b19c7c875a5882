package projection

import (
	"context"
	"database/sql/driver"
	"fmt"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
)

// Catalog is every projection of the service, for `shipd projections`.
type Catalog struct {
	db          *sqlx.DB
	projections []Projection
	options     Options
}

// NewCatalog returns the catalog of projections, sorted by name.
func NewCatalog(db *sqlx.DB, projections []Projection) *Catalog {
	sorted := slices.Clone(projections)
	slices.SortFunc(sorted, func(a, b Projection) int { return strings.Compare(a.Name, b.Name) })
	return &Catalog{db: db, projections: sorted}
}

// WithOptions returns the catalog rebuilding with o (zero fields keep their
// defaults).
func (c *Catalog) WithOptions(o Options) *Catalog {
	cc := *c
	cc.options = o
	return &cc
}

// Projections lists the projections by name.
func (c *Catalog) Projections() []Projection { return slices.Clone(c.projections) }

// Find returns the projection called name; an unknown name is an error that
// lists the known ones.
func (c *Catalog) Find(name string) (Projection, error) {
	for _, p := range c.projections {
		if p.Name == name {
			return p, nil
		}
	}
	names := make([]string, len(c.projections))
	for i, p := range c.projections {
		names[i] = p.Name
	}
	return Projection{}, fmt.Errorf("unknown projection %q (known: %s)", name, strings.Join(names, ", "))
}

// Events counts the stored events a rebuild of the projection called name
// would replay now.
func (c *Catalog) Events(ctx context.Context, name string) (int64, error) {
	p, err := c.Find(name)
	if err != nil {
		return 0, err
	}
	sources, err := messaging.ExistingTopics(ctx, c.db, p.Sources())
	if err != nil {
		return 0, err
	}
	return messaging.CountStored(ctx, c.db, sources, messaging.Window{})
}

// Rebuild rebuilds the projection called name from its events; progress
// (may be nil) hears how it advances. One rebuild of a projection runs at a
// time in the whole cluster; a second one fails at once.
func (c *Catalog) Rebuild(ctx context.Context, name string, progress Progress) (Report, error) {
	p, err := c.Find(name)
	if err != nil {
		return Report{}, err
	}
	release, err := c.claim(ctx, p.Name)
	if err != nil {
		return Report{}, err
	}
	defer release()
	return rebuild(ctx, c.db, p, c.options.withDefaults(), progress)
}

// claim takes a session advisory lock named after the projection, so two
// operators cannot swap each other's shadow tables away. A crash ends the
// session and frees it.
func (c *Catalog) claim(ctx context.Context, name string) (func(), error) {
	conn, err := c.db.Connx(ctx)
	if err != nil {
		return nil, err
	}
	key := "shipd.projection_rebuild:" + name
	var ok bool
	if err := conn.GetContext(ctx, &ok, `SELECT pg_try_advisory_lock(hashtextextended($1, 0))`, key); err != nil {
		conn.Close()
		return nil, fmt.Errorf("claiming the rebuild of %s: %w", name, err)
	}
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("a rebuild of %s is already running", name)
	}
	return func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(hashtextextended($1, 0))`, key); err != nil {
			// A pooled connection would keep the lock: discard it instead.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, nil
}
