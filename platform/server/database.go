package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jmoiron/sqlx"

	"shipd/migrations"
	"shipd/platform/config"
	"shipd/platform/messaging"
	"shipd/platform/postgres"
	"shipd/platform/postgres/localcluster"
	"shipd/platform/secrets"
)

// DatabaseURL returns DATABASE_URL, or in local mode starts (or reuses) the
// cluster under DataDir/postgres and returns its address. Every subcommand
// finds the database this way.
func DatabaseURL(ctx context.Context, cfg config.Config) (string, error) {
	if !cfg.LocalMode() {
		return cfg.DatabaseURL, nil
	}
	return localcluster.Ensure(ctx, localcluster.Config{
		Dir: filepath.Join(cfg.DataDir, "postgres"),
		Logf: func(format string, args ...any) {
			fmt.Fprintf(os.Stderr, "shipd: "+format+"\n", args...)
		},
	})
}

// ModuleDatabaseURL returns the database of this process's modules: their
// own (<MODULE>_DATABASE_URL, ADR 0034), or DatabaseURL's.
func ModuleDatabaseURL(ctx context.Context, cfg config.Config) (string, error) {
	if cfg.HasModuleDatabase() {
		return cfg.ModuleDatabaseURL(), nil
	}
	return DatabaseURL(ctx, cfg)
}

// PlatformDB is the database of the platform tables every process shares
// (accounts, API keys, rate limits, dashboard users): DATABASE_URL. It is
// the module database itself unless this process's modules have their own.
type PlatformDB struct{ *sqlx.DB }

// OpenDatabase connects to the service's database.
func OpenDatabase(ctx context.Context, cfg config.Config) (*sqlx.DB, func(), error) {
	return openAt(ctx, cfg, DatabaseURL)
}

// openAt connects to the database that where finds.
func openAt(ctx context.Context, cfg config.Config, where func(context.Context, config.Config) (string, error)) (*sqlx.DB, func(), error) {
	dsn, err := where(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	db, err := postgres.Open(ctx, dsn, cfg.DatabasePool())
	if err != nil {
		return nil, nil, err
	}
	return db, func() { db.Close() }, nil
}

// OpenModuleDatabase connects to the database of this process's modules.
func OpenModuleDatabase(ctx context.Context, cfg config.Config) (*sqlx.DB, func(), error) {
	return openAt(ctx, cfg, ModuleDatabaseURL)
}

// Migrate applies the schema migrations and creates every stream's tables.
func Migrate(ctx context.Context, db *sqlx.DB, streams []string) error {
	if _, err := migrations.Up(ctx, db.DB); err != nil {
		return err
	}
	return messaging.InitializeStreams(ctx, db, streams)
}

// SecretBox returns the box for secret settings. Local mode keeps a
// generated key under DataDir; otherwise SECRET_KEY is required (Validate
// checks it).
func SecretBox(cfg config.Config) (*secrets.Box, error) {
	key := cfg.SecretKey
	if key == "" {
		var err error
		if key, err = secrets.LocalKey(cfg.DataDir); err != nil {
			return nil, fmt.Errorf("local secret key: %w", err)
		}
	}
	return secrets.NewBox(key)
}
