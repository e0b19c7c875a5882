package architecture_test

// Unit tests of the checker in imports_test.go: synthetic inputs, each rule
// shown to fail on a violation and to pass what it allows.

import (
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func rulesOf(vs []violation) []int {
	var rs []int
	for _, v := range vs {
		rs = append(rs, v.Rule)
	}
	slices.Sort(rs)
	return slices.Compact(rs)
}

func TestImportRules(t *testing.T) {
	tests := []struct {
		file, imp string
		want      []int // rules broken; nil: allowed
	}{
		// Rule 1: another module only through its contract.
		{"modules/shipments/app/x.go", "shipd/modules/channels/adapters", []int{1, 3}},
		{"modules/shipments/adapters/postgres/repo.go", "shipd/modules/channels/adapters/postgres", []int{1}},
		{"modules/shipments/ports/http.go", "shipd/modules/channels/app", []int{1}},
		{"modules/shipments/ports/http.go", "shipd/modules/channels/domain", []int{1}},
		{"modules/shipments/module.go", "shipd/modules/channels", []int{1}},
		{"modules/shipments/module.go", "shipd/modules/channels/contractx", []int{1}},
		{"modules/shipments/app/command/create.go", "shipd/modules/channels/contract", nil},
		{"modules/tracking/ports/events.go", "shipd/modules/shipments/contract/events", nil},
		{"modules/shipments/adapters/postgres/repo.go", "shipd/modules/shipments/domain", nil},
		{"modules/shipments/module.go", "shipd/modules/shipments/adapters/postgres", nil},

		// Rule 2: domain imports stdlib, ids, carrier, fault, own domain.
		{"modules/shipments/domain/shipment.go", "time", nil},
		{"modules/shipments/domain/shipment.go", "encoding/json", nil},
		{"modules/shipments/domain/shipment.go", "shipd/platform/ids", nil},
		{"modules/shipments/domain/shipment.go", "shipd/platform/carrier", nil},
		{"modules/shipments/domain/shipment.go", "shipd/platform/fault", nil},
		{"modules/shipments/domain/parcel/parcel.go", "shipd/modules/shipments/domain", nil},
		{"modules/shipments/domain/shipment.go", "shipd/modules/shipments/domain/parcel", nil},
		{"modules/shipments/domain/shipment.go", "github.com/jmoiron/sqlx", []int{2}},
		{"modules/shipments/domain/shipment.go", "github.com/google/uuid", []int{2}},
		{"modules/shipments/domain/shipment.go", "github.com/ThreeDotsLabs/watermill", []int{2}},
		{"modules/shipments/domain/shipment.go", "golang.org/x/text/currency", []int{2}},
		{"modules/shipments/domain/shipment.go", "shipd/platform/messaging", []int{2}},
		{"modules/shipments/domain/shipment.go", "shipd/platform/httpapi", []int{2}},
		{"modules/shipments/domain/shipment.go", "shipd/platform/ids/internal", []int{2}},
		{"modules/shipments/domain/shipment.go", "shipd/modules/shipments/app", []int{2}},
		{"modules/shipments/domain/shipment.go", "shipd/modules/channels/contract", []int{2}},
		{"modules/shipments/domain/shipment.go", "shipd/modules/channels/domain", []int{1, 2}},
		{"modules/shipments/domain/shipment.go", "shipd", []int{2}},
		{"platform/fault/fault.go", "errors", nil},
		{"platform/fault/fault.go", "github.com/pkg/errors", []int{2}},
		{"platform/fault/fault.go", "shipd/platform/ids", []int{2}},

		// Rule 3: app stays away from adapters, ports, SQL and HTTP.
		{"modules/shipments/app/command/create.go", "shipd/modules/shipments/adapters/postgres", []int{3}},
		{"modules/shipments/app/command/create.go", "shipd/modules/shipments/ports", []int{3}},
		{"modules/shipments/app/query/list.go", "shipd/adapters/carriers/ppl", []int{3}},
		{"modules/shipments/app/app.go", "shipd/adapters/labels", []int{3}},
		{"modules/shipments/app/app.go", "github.com/jmoiron/sqlx", []int{3}},
		{"modules/shipments/app/app.go", "github.com/lib/pq", []int{3}},
		{"modules/shipments/app/app.go", "github.com/gorilla/mux", []int{3}},
		{"modules/shipments/app/app.go", "net/http", []int{3}},
		{"modules/shipments/app/app.go", "net/http/httptest", []int{3}},
		{"modules/shipments/app/app.go", "database/sql", []int{3}},
		{"modules/shipments/app/app.go", "net/url", nil},
		{"modules/shipments/app/app.go", "context", nil},
		{"modules/shipments/app/app.go", "shipd/modules/shipments/domain", nil},
		{"modules/shipments/app/app.go", "shipd/platform/carrier", nil},
		{"modules/shipments/app/app.go", "shipd/platform/messaging", nil},
		{"modules/shipments/app/app.go", "shipd/modules/channels/contract", nil},
		{"modules/shipments/app/app.go", "github.com/ThreeDotsLabs/watermill", nil},

		// Rule 4: platform and adapters import no module and not the root.
		{"platform/httpapi/errors.go", "shipd/modules/shipments/contract", []int{4}},
		{"platform/messaging/bus.go", "shipd/adapters/carriers/sandbox", []int{4}},
		{"platform/config/config.go", "shipd", []int{4}},
		{"platform/carrier/carrier.go", "shipd/platform/ids", nil},
		{"platform/httpapi/errors.go", "shipd/platform/fault", nil},
		{"platform/httpapi/errors.go", "net/http", nil},
		{"adapters/carriers/ppl/client.go", "shipd/modules/shipments/domain", []int{4}},
		{"adapters/carriers/ppl/client.go", "shipd", []int{4}},
		{"adapters/carriers/ppl/client.go", "shipd/platform/carrier", nil},
		{"adapters/labels/merge.go", "shipd/adapters/labels/pdf", nil},
		{"adapters/labels/merge.go", "net/http", nil},

		// Rule 4: platform imports no dashboard either; the root hands it in.
		{"platform/server/app.go", "shipd/dashboard", []int{4}},
		{"platform/apptest/apptest.go", "shipd/dashboard/templates", []int{4}},
		{"platform/server/app.go", "shipd/dashboardx", nil},
		{"providers.go", "shipd/dashboard", nil},

		// Rule 7: the dashboard imports only the modules' contracts.
		{"dashboard/shipments.go", "shipd/modules/shipments/contract", nil},
		{"dashboard/channels.go", "shipd/modules/channels/contract/remote", nil},
		{"dashboard/dashboard.go", "shipd/platform/auth", nil},
		{"dashboard/dashboard.go", "github.com/gorilla/mux", nil},
		{"dashboard/shipments.go", "shipd/modules/shipments/app", []int{7}},
		{"dashboard/shipments.go", "shipd/modules/shipments/app/query", []int{7}},
		{"dashboard/shipments.go", "shipd/modules/shipments/domain", []int{7}},
		{"dashboard/webhooks.go", "shipd/modules/webhooks/ports", []int{7}},
		{"dashboard/webhooks.go", "shipd/modules/webhooks/adapters", []int{7}},
		{"dashboard/channels.go", "shipd/modules/channels", []int{7}},
		{"dashboard/channels.go", "shipd/modules/channels/contractx", []int{7}},
		{"dashboard/channels.go", "shipd/modules", []int{7}},
		{"dashboard/internal/pages/x.go", "shipd/modules/tracking/domain", []int{7}},

		// Places no rule covers.
		{"wire.go", "shipd/modules/shipments", nil},
		{"cmd/shipd/main.go", "shipd/modules/channels/adapters/postgres", nil},
		{"platformx/x.go", "shipd/modules/shipments", nil},
		{"modulesx/a/app/x.go", "net/http", nil},
		{"dashboardx/x.go", "shipd/modules/shipments/app", nil},
	}
	for _, tc := range tests {
		vs := checkImport(tc.file, tc.imp)
		if got := rulesOf(vs); !slices.Equal(got, tc.want) {
			t.Errorf("%s importing %q: broken rules %v, want %v: %v", tc.file, tc.imp, got, tc.want, vs)
		}
		for _, v := range vs {
			msg := v.String()
			if !strings.Contains(msg, tc.file) || !strings.Contains(msg, `"`+tc.imp+`"`) || !strings.Contains(msg, "rule ") || v.Text == "" {
				t.Errorf("message does not name file, import, rule and text: %s", msg)
			}
		}
	}
}

func TestSQLRuleInGo(t *testing.T) {
	known := union(fixedModules, sharedSchemas)
	src := "package postgres\n\n" +
		"import \"context\"\n\n" +
		"const own = `SELECT s.id, EXTRACT(EPOCH FROM s.created_at)\n" +
		"  FROM shipments.shipments s\n" +
		"  JOIN shipments.parcels p ON p.shipment_id = s.id`\n\n" +
		"const upsert = `INSERT INTO shipments.shipment_list AS l (id, version) VALUES ($1, $2)\n" +
		"  ON CONFLICT (id) DO UPDATE SET version = excluded.version\n" +
		"  WHERE l.version IS DISTINCT FROM excluded.version`\n\n" +
		"const foreign = `SELECT c.status\n" +
		"  FROM channels.channels c`\n\n" +
		"var q = \"update \\\"tracking\\\".\\\"parcels\\\" SET status = $1\"\n\n" +
		"var keys = \"SELECT 1 FROM platform.api_keys\"\n\n" +
		"func f(ctx context.Context) error { return errorf(\"call into channels.OpenSession: %w\") }\n\n" +
		"var unknown = \"SELECT 1 FROM pg_catalog.pg_tables\"\n"
	vs, err := checkGoFile(token.NewFileSet(), "modules/shipments/adapters/postgres/repo.go", []byte(src), known)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		if v.Rule != 5 || !strings.Contains(v.Text, "schema shipments") {
			t.Errorf("unexpected violation: %s", v)
		}
		got = append(got, v.Pos+": "+v.Subject)
	}
	want := []string{
		`modules/shipments/adapters/postgres/repo.go:14: SQL "FROM channels.channels" (schema channels)`,
		`modules/shipments/adapters/postgres/repo.go:16: SQL "update \"tracking\".\"parcels" (schema tracking)`,
		`modules/shipments/adapters/postgres/repo.go:18: SQL "FROM platform.api_keys" (schema platform)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("SQL violations:\n got %q\nwant %q", got, want)
	}

	// Outside modules/ the literals are not the module rule's business.
	vs, err = checkGoFile(token.NewFileSet(), "platform/auth/keys.go", []byte(src), known)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 {
		t.Errorf("platform file: unexpected violations %v", vs)
	}
}

func TestSQLRuleInMigrations(t *testing.T) {
	modules := fixedModules
	known := union(modules, sharedSchemas)
	good := `-- +goose Up
CREATE SCHEMA IF NOT EXISTS channels;
-- rows come from shipments.shipments later (a comment, not checked)
CREATE TABLE channels.channels (
    id text PRIMARY KEY,
    account_id text NOT NULL
);
CREATE INDEX channels_account_idx ON channels.channels (account_id, created_at DESC, id DESC);
ALTER TABLE IF EXISTS channels.channels ADD COLUMN version bigint NOT NULL DEFAULT 0;
-- +goose Down
DROP TABLE channels.channels;
DROP SCHEMA channels;
`
	if vs := checkMigration("migrations/00002_channels.sql", good, modules, known); len(vs) != 0 {
		t.Errorf("good migration reported: %v", vs)
	}

	bad := `-- +goose Up
CREATE SCHEMA shipments;
CREATE TABLE IF NOT EXISTS shipments.shipments (
    id text PRIMARY KEY,
    channel_id text NOT NULL REFERENCES channels.channels (id)
);
CREATE INDEX shipment_tracking_idx ON tracking.parcels (id);
ALTER TABLE platform.accounts ADD COLUMN x int;
CREATE SCHEMA webhooks;
`
	vs := checkMigration("migrations/00003_shipments.sql", bad, modules, known)
	var got []string
	for _, v := range vs {
		if v.Rule != 5 {
			t.Errorf("unexpected rule: %s", v)
		}
		got = append(got, v.Pos+": "+v.Subject)
	}
	want := []string{
		`migrations/00003_shipments.sql:5: SQL "REFERENCES channels.channels" (schema channels)`,
		`migrations/00003_shipments.sql:7: SQL "ON tracking.parcels" (schema tracking)`,
		`migrations/00003_shipments.sql:8: SQL "TABLE platform.accounts" (schema platform)`,
		`migrations/00003_shipments.sql:9: SQL "SCHEMA webhooks" (schema webhooks)`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("migration violations:\n got %q\nwant %q", got, want)
	}

	// A migration named after no module is not checked.
	if vs := checkMigration("migrations/00001_platform.sql", bad, modules, known); len(vs) != 0 {
		t.Errorf("platform migration reported: %v", vs)
	}
	// A migration named after two modules cannot belong to one schema.
	if vs := checkMigration("migrations/00009_shipments_tracking.sql", good, modules, known); len(vs) != 1 || vs[0].Rule != 5 {
		t.Errorf("two-module migration: got %v, want one rule 5 violation", vs)
	}
}

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestModuleShape(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"modules/channels/module.go":  "package channels\n",
		"modules/channels/domain/":    "",
		"modules/channels/app/":       "",
		"modules/channels/ports/":     "",
		"modules/channels/adapters/":  "",
		"modules/channels/contract/":  "",
		"modules/tracking/domain/":    "",
		"modules/tracking/app/":       "",
		"modules/tracking/module.go/": "", // a directory, not a file
		"modules/tracking/contract":   "a file, not a directory",
	})
	ms, err := listModules(root)
	if err != nil {
		t.Fatal(err)
	}
	vs := checkModuleShape(root, ms)
	if len(vs) != 1 {
		t.Fatalf("got %v, want one violation for tracking", vs)
	}
	want := "modules/tracking/: missing module.go, ports/, adapters/, contract/ breaks rule 6: " + rule6Text
	if vs[0].String() != want {
		t.Errorf("got  %s\nwant %s", vs[0], want)
	}
}

// TestCheckTree runs the whole walk over a small synthetic tree with one
// violation of each rule, plus files the walk must skip.
func TestCheckTree(t *testing.T) {
	root := t.TempDir()
	shape := func(m string) map[string]string {
		return map[string]string{
			"modules/" + m + "/module.go": "package " + m + "\n",
			"modules/" + m + "/domain/":   "", "modules/" + m + "/app/": "", "modules/" + m + "/ports/": "",
			"modules/" + m + "/adapters/": "", "modules/" + m + "/contract/": "",
		}
	}
	files := map[string]string{
		"go.mod":                        "module shipd\n\ngo 1.26\n",
		"wire.go":                       "package main\nimport _ \"shipd/modules/shipments\"\n",
		"modules/shipments/app/x.go":    "package app\n\nimport (\n\t\"context\"\n\t\"shipd/modules/channels/adapters\"\n)\n",
		"modules/shipments/domain/d.go": "package domain\nimport \"github.com/jmoiron/sqlx\"\n",
		"modules/shipments/adapters/postgres/r.go":  "package postgres\nconst q = `SELECT * FROM tracking.parcels`\n",
		"modules/shipments/adapters/postgres/q.sql": "SELECT 1 FROM webhooks.subscriptions;\n",
		"platform/ids/ids.go":                       "package ids\nimport \"shipd/modules/channels/contract\"\n",
		"platform/fault/fault.go":                   "package fault\nimport \"github.com/pkg/errors\"\n",
		"adapters/carriers/ppl/ppl.go":              "package ppl\nimport \"shipd\"\n",
		"platform/server/app.go":                    "package server\nimport \"shipd/dashboard\"\n",
		"dashboard/pages.go":                        "package dashboard\n\nimport (\n\t\"shipd/modules/shipments/contract\"\n\t\"shipd/modules/shipments/app\"\n)\n",
		"migrations/00004_tracking.sql":             "CREATE TABLE tracking.parcels (id text REFERENCES shipments.shipments (id));\n",
		"migrations/00001_platform.sql":             "CREATE TABLE platform.accounts (id text);\n",
		"modules/webhooks/module.go":                "package webhooks\n",
		// Skipped: tests, testdata, hidden dirs, .data, nested modules.
		"modules/shipments/app/x_test.go":     "package app\nimport \"net/http\"\n",
		"modules/shipments/app/testdata/t.go": "package t\nimport \"net/http\"\n",
		".data/x.go":                          "package x\nimport \"shipd/modules/a/b\"\n",
		".hidden/modules/a/app/x.go":          "package app\nimport \"net/http\"\n",
		"tools/go.mod":                        "module tools\n",
		"tools/modules/shipments/app/x.go":    "package app\nimport \"net/http\"\n",
		"modules/shipments/app/_scratch/x.go": "package x\nimport \"net/http\"\n",
	}
	for _, m := range []string{"channels", "shipments"} {
		for k, v := range shape(m) {
			files[k] = v
		}
	}
	writeFiles(t, root, files)

	rep, err := checkTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range rep.Violations {
		got = append(got, v.String())
	}
	want := []string{
		`modules/shipments/app/x.go:5: import "shipd/modules/channels/adapters" breaks rule 1: ` + rule1Text,
		`modules/shipments/app/x.go:5: import "shipd/modules/channels/adapters" breaks rule 3: ` + rule3Text,
		`modules/shipments/domain/d.go:2: import "github.com/jmoiron/sqlx" breaks rule 2: ` + rule2Text,
		`modules/shipments/adapters/postgres/r.go:2: SQL "FROM tracking.parcels" (schema tracking) breaks rule 5: SQL in shipd/modules/shipments/ touches only the schema shipments`,
		`modules/shipments/adapters/postgres/q.sql:1: SQL "FROM webhooks.subscriptions" (schema webhooks) breaks rule 5: SQL in shipd/modules/shipments/ touches only the schema shipments`,
		`platform/ids/ids.go:2: import "shipd/modules/channels/contract" breaks rule 4: ` + rule4Text,
		`platform/fault/fault.go:2: import "github.com/pkg/errors" breaks rule 2: ` + rule2bText,
		`adapters/carriers/ppl/ppl.go:2: import "shipd" breaks rule 4: ` + rule4bText,
		`platform/server/app.go:2: import "shipd/dashboard" breaks rule 4: ` + rule4Text,
		`dashboard/pages.go:5: import "shipd/modules/shipments/app" breaks rule 7: ` + rule7Text,
		`migrations/00004_tracking.sql:1: SQL "REFERENCES shipments.shipments" (schema shipments) breaks rule 5: a migration named after module tracking creates and alters objects only in the schema tracking`,
		`modules/webhooks/: missing domain/, app/, ports/, adapters/, contract/ breaks rule 6: ` + rule6Text,
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("violations:\n got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	if rep.GoFiles != 12 || rep.SQLFiles != 3 {
		t.Errorf("checked %d Go files and %d SQL files, want 12 and 3", rep.GoFiles, rep.SQLFiles)
	}
}

// TestCheckTreeWithoutModules: a tree with no modules/ has nothing to break.
func TestCheckTreeWithoutModules(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"go.mod":              "module shipd\n",
		"platform/ids/ids.go": "package ids\nimport \"time\"\n",
	})
	rep, err := checkTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Violations) != 0 || len(rep.Modules) != 0 || rep.GoFiles != 1 {
		t.Errorf("got %+v, want no violations, no modules, one Go file", rep)
	}
}

func TestGoModModule(t *testing.T) {
	for src, want := range map[string]string{
		"module shipd\n\ngo 1.26\n":        "shipd",
		"// c\nmodule \"example.com/x\"\n": "example.com/x",
		"go 1.26\n":                        "",
	} {
		if got := goModModule([]byte(src)); got != want {
			t.Errorf("goModModule(%q) = %q, want %q", src, got, want)
		}
	}
}
