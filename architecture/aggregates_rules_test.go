package architecture_test

// Unit tests of rule 9's checker (aggregates_test.go): the style passes,
// and each way of leaving it is caught.

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodAggregate = `package domain

type Stored struct{ ID string }

type Parcel struct {
	s       Stored
	updates []string
}

func New(id string) (*Parcel, error) { return &Parcel{s: Stored{ID: id}}, nil }

func Restore(s Stored, updates []string) *Parcel { return &Parcel{s: s, updates: updates} }

func (p *Parcel) Stored() Stored { return p.s }
`

const goodRepository = `package adapters

import "shipd/modules/tracking/domain"

func load() *domain.Parcel { return domain.Restore(domain.Stored{}, nil) }
`

func aggregateViolations(t *testing.T, files map[string]string) []violation {
	t.Helper()
	fset := token.NewFileSet()
	var vs []violation
	var d *aggregateDomain
	for rel, src := range files {
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, restoreCalls(fset, rel, f)...)
		if strings.HasPrefix(rel, "modules/tracking/domain/") {
			if d == nil {
				d = newAggregateDomain("modules/tracking/domain")
			}
			d.read(fset, rel, f)
		}
	}
	if d != nil {
		vs = append(vs, d.violations()...)
	}
	return vs
}

func TestAggregateStyleAllowsTheStyle(t *testing.T) {
	vs := aggregateViolations(t, map[string]string{
		"modules/tracking/domain/parcel.go":                       goodAggregate,
		"modules/tracking/adapters/postgres_repository.go":        goodRepository,
		"modules/tracking/adapters/memory/repository.go":          strings.Replace(goodRepository, "package adapters", "package memory", 1),
		"modules/tracking/ports/http.go":                          strings.Replace(goodRepository, "domain.Restore(domain.Stored{}, nil)", "nil", 1),
		"modules/tracking/app/command/x.go":                       "package command\n\nfunc Restore() {}\n\nfunc f() { Restore() }\n",
		"modules/shipments/adapters/postgres_repository.go":       strings.Replace(goodRepository, "tracking/domain", "shipments/domain", 1),
		"modules/shipments/adapters/other_module_restore_name.go": "package adapters\n\nimport \"shipd/platform/backup\"\n\nfunc f() { backup.Restore() }\n",
	})
	for _, v := range vs {
		t.Error(v)
	}
}

func TestAggregateStyleCatchesEveryDeparture(t *testing.T) {
	for _, tc := range []struct {
		name        string
		files       map[string]string
		wantSubject string
	}{
		{"an app that restores an aggregate", map[string]string{
			"modules/tracking/domain/parcel.go": goodAggregate,
			"modules/tracking/app/command/x.go": strings.Replace(goodRepository, "package adapters", "package command", 1),
		}, "call of tracking's domain.Restore"},
		{"a port that restores one under another name", map[string]string{
			"modules/tracking/domain/parcel.go": goodAggregate,
			"modules/tracking/ports/http.go": strings.NewReplacer(`import "shipd`, `import d "shipd`, "domain.", "d.").
				Replace(strings.Replace(goodRepository, "package adapters", "package ports", 1)),
		}, "call of tracking's domain.Restore"},
		{"another module's adapters", map[string]string{
			"modules/tracking/domain/parcel.go":                 goodAggregate,
			"modules/shipments/adapters/postgres_repository.go": goodRepository,
		}, "call of tracking's domain.Restore"},
		{"a test helper outside the modules", map[string]string{
			"modules/tracking/domain/parcel.go": goodAggregate,
			"cmd/shipd-bench/tracking.go":       strings.Replace(goodRepository, "package adapters", "package main", 1),
		}, "call of tracking's domain.Restore"},
		{"no record type", map[string]string{
			"modules/tracking/domain/parcel.go": strings.Replace(goodAggregate, "type Stored struct{ ID string }", "type Stored = map[string]any", 1),
		}, "no type Stored"},
		{"no Restore", map[string]string{
			"modules/tracking/domain/parcel.go": strings.Replace(goodAggregate, "func Restore(", "func restore(", 1),
		}, "no func Restore"},
		{"a Restore of loose fields", map[string]string{
			"modules/tracking/domain/parcel.go": strings.Replace(goodAggregate, "func Restore(s Stored, updates []string) *Parcel { return &Parcel{s: s, updates: updates} }",
				"func Restore(id string) *Parcel { return &Parcel{s: Stored{ID: id}} }", 1),
		}, "func Restore that takes no Stored"},
		{"fields of its own instead of the record", map[string]string{
			"modules/tracking/domain/parcel.go": strings.Replace(goodAggregate, "	s       Stored\n", "	id      string\n", 1),
		}, "aggregate Parcel holding Stored"},
		{"the record exported", map[string]string{
			"modules/tracking/domain/parcel.go": strings.Replace(goodAggregate, "	s       Stored\n", "	State   Stored\n", 1),
		}, "aggregate Parcel holding Stored"},
		{"the record embedded", map[string]string{
			"modules/tracking/domain/parcel.go": strings.Replace(goodAggregate, "	s       Stored\n", "	Stored\n", 1),
		}, "aggregate Parcel holding Stored"},
		{"no copy handed out", map[string]string{
			"modules/tracking/domain/parcel.go": strings.Replace(goodAggregate, "func (p *Parcel) Stored() Stored", "func (p *Parcel) State() Stored", 1),
		}, "without method Stored() Stored"},
	} {
		vs := aggregateViolations(t, tc.files)
		found := false
		for _, v := range vs {
			found = found || (v.Rule == 9 && strings.Contains(v.Subject, tc.wantSubject))
		}
		if !found {
			t.Errorf("%s: not caught as %q; got %v", tc.name, tc.wantSubject, vs)
		}
	}
}

// A module with several aggregates keeps each in a package under its
// domain: each such package is held to the rule, the domain package that
// holds what they share is not, and a Restore of one called outside the
// module's adapters is caught.
func TestAggregateStyleOfAggregatesInDomainPackages(t *testing.T) {
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Join(root, filepath.Dir(rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, rel), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("modules/dispatch/domain/calendar.go", "package domain\n\ntype Window struct{ From, Until int }\n")
	write("modules/dispatch/domain/pickup/pickup.go", strings.Replace(goodAggregate, "package domain", "package pickup", 1))
	write("modules/dispatch/domain/manifest/manifest.go", "package manifest\n\ntype Stored struct{ ID string }\n\ntype Manifest struct{ s Stored }\n\nfunc (m *Manifest) Stored() Stored { return m.s }\n")
	write("modules/dispatch/adapters/repo.go", "package adapters\n\nimport \"shipd/modules/dispatch/domain/pickup\"\n\nvar _ = pickup.Restore(pickup.Stored{}, nil)\n")
	write("modules/dispatch/app/leak.go", "package app\n\nimport \"shipd/modules/dispatch/domain/pickup\"\n\nvar _ = pickup.Restore(pickup.Stored{}, nil)\n")
	modules, vs, err := checkAggregateTree(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, v.Pos+" "+v.Subject)
	}
	if modules != 1 || len(vs) != 2 ||
		!strings.Contains(strings.Join(got, "|"), "modules/dispatch/domain/manifest") ||
		!strings.Contains(strings.Join(got, "|"), "modules/dispatch/app/leak.go") {
		t.Errorf("read %d modules; violations %q: want the manifest package's missing Restore and app's call of pickup's Restore", modules, got)
	}
}
