package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"

	"shipd/platform/httpapi"
	"shipd/platform/metrics"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// /readyz says 503 with the reason while the database lacks a migration or
// does not answer; /healthz stays 200 (the process is fine).
func TestNotReadyWithoutMigrationsOrDatabase(t *testing.T) {
	t.Parallel()
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	// As if this build brought a migration the database has not had yet.
	if _, err := db.Exec(`DELETE FROM platform_goose_db_version WHERE version_id = (SELECT max(version_id) FROM platform_goose_db_version)`); err != nil {
		t.Fatal(err)
	}
	router := httpapi.NewRouter()
	addOperatorRoutes(router, db, PlatformDB{DB: db}, metrics.NewRegistry(), nil)
	probe := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		router.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		var body map[string]string
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		return rec.Code, body["reason"]
	}
	if code, reason := probe("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(reason, "migrations to apply") {
		t.Errorf("unmigrated: %d %q", code, reason)
	}
	db.Close()
	if code, reason := probe("/readyz"); code != http.StatusServiceUnavailable || !strings.Contains(reason, "does not answer") {
		t.Errorf("database closed: %d %q", code, reason)
	}
	if code, _ := probe("/healthz"); code != http.StatusOK {
		t.Errorf("healthz: %d", code)
	}
}

// With a module database apart from the platform's (ADR 0034), /readyz asks
// both and names the one at fault.
func TestReadinessAsksBothDatabases(t *testing.T) {
	t.Parallel()
	open := func() *sqlx.DB {
		db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), postgres.Pool{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	module, platform := open(), open()
	router := httpapi.NewRouter()
	addOperatorRoutes(router, module, PlatformDB{DB: platform}, metrics.NewRegistry(), nil)
	probe := func() (int, map[string]any) {
		rec := httptest.NewRecorder()
		router.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		var body map[string]any
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		return rec.Code, body
	}
	if code, body := probe(); code != http.StatusOK || fmt.Sprint(body["databases"]) != "map[module:ok platform:ok]" {
		t.Errorf("both ready: %d %v", code, body)
	}
	platform.Close()
	if code, body := probe(); code != http.StatusServiceUnavailable || !strings.HasPrefix(fmt.Sprint(body["reason"]), "platform database: ") {
		t.Errorf("platform database closed: %d %v", code, body)
	}
	router = httpapi.NewRouter()
	addOperatorRoutes(router, module, PlatformDB{DB: open()}, metrics.NewRegistry(), nil)
	module.Close()
	if code, body := probe(); code != http.StatusServiceUnavailable || !strings.HasPrefix(fmt.Sprint(body["reason"]), "module database: ") {
		t.Errorf("module database closed: %d %v", code, body)
	}
}
