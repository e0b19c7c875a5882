package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"shipd/platform/httpapi"
	"shipd/platform/metrics"
	"shipd/platform/postgres"
	"shipd/platform/postgres/pgtest"
)

// /readyz says 503 with the reason while the database lacks a migration or
// does not answer; /healthz stays 200 (the process is fine).
func TestNotReadyWithoutMigrationsOrDatabase(t *testing.T) {
	db, err := postgres.Open(context.Background(), pgtest.NewDatabase(t), postgres.Pool{})
	if err != nil {
		t.Fatal(err)
	}
	// As if this build brought a migration the database has not had yet.
	if _, err := db.Exec(`DELETE FROM platform_goose_db_version WHERE version_id = (SELECT max(version_id) FROM platform_goose_db_version)`); err != nil {
		t.Fatal(err)
	}
	router := httpapi.NewRouter()
	addOperatorRoutes(router, db, metrics.NewRegistry(), nil)
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
