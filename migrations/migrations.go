// Package migrations holds the SQL schema, one PostgreSQL schema per module,
// embedded in the binary and applied with goose.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

// Files are the migrations, embedded.
//
//go:embed *.sql
var Files embed.FS

func provider(db *sql.DB) (*goose.Provider, error) {
	// The session lock makes concurrent start-ups of several instances safe:
	// one migrates, the others wait and find nothing to do.
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, err
	}
	return goose.NewProvider(goose.DialectPostgres, db, Files,
		goose.WithSessionLocker(locker), goose.WithTableName("platform_goose_db_version"))
}

// Up applies every pending migration.
func Up(ctx context.Context, db *sql.DB) ([]*goose.MigrationResult, error) {
	p, err := provider(db)
	if err != nil {
		return nil, err
	}
	res, err := p.Up(ctx)
	if err != nil {
		return res, fmt.Errorf("applying migrations: %w", err)
	}
	return res, nil
}

// Pending reports whether migrations remain to be applied.
func Pending(ctx context.Context, db *sql.DB) (bool, error) {
	p, err := provider(db)
	if err != nil {
		return false, err
	}
	return p.HasPending(ctx)
}

// PrintStatus writes one line per migration: applied or pending.
func PrintStatus(ctx context.Context, db *sql.DB, out io.Writer) error {
	p, err := provider(db)
	if err != nil {
		return err
	}
	st, err := p.Status(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tMIGRATION\tSTATE\tAPPLIED AT")
	for _, s := range st {
		applied := "-"
		if !s.AppliedAt.IsZero() {
			applied = s.AppliedAt.UTC().Format("2006-01-02 15:04:05Z")
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", s.Source.Version, s.Source.Path, s.State, applied)
	}
	return tw.Flush()
}
