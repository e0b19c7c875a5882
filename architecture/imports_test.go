package architecture_test

// The dependency rules of architecture/README.md, as code.
//
// checkImport, checkSQL, checkGoFile, checkMigration and checkModuleShape are
// the checker; checkTree runs them over a source tree. TestArchitecture runs
// checkTree over this repository; rules_test.go feeds the checker synthetic
// inputs to prove that every rule can fail.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// modulePath is the Go module the rules are written for (go.mod: module shipd).
const modulePath = "shipd"

// Import paths the rules name.
const (
	modulesPath   = modulePath + "/modules"
	platformPath  = modulePath + "/platform"
	adaptersPath  = modulePath + "/adapters"
	dashboardPath = modulePath + "/dashboard"
	idsPath       = platformPath + "/ids"
	carrierPath   = platformPath + "/carrier"
	faultPath     = platformPath + "/fault"
	migrationsDir = "migrations"
)

// fixedModules are the bounded contexts of the design. Each owns the
// PostgreSQL schema of the same name. Directories found under modules/ are
// added to this list when a tree is checked.
var fixedModules = []string{"channels", "shipments", "tracking", "webhooks"}

// sharedSchemas are schemas that exist but belong to no module: platform
// (accounts, keys, rate limits, idempotency) and public (Watermill tables).
var sharedSchemas = []string{"platform", "public"}

// moduleParts is the inner shape every module has (rule 6).
var moduleParts = []string{"module.go", "domain/", "app/", "ports/", "adapters/", "contract/"}

// Rule texts, quoted in every failure message.
const (
	rule1Text  = "shipd/modules/X/... imports from another module Y only shipd/modules/Y/contract (and its subpackages)"
	rule2Text  = "shipd/modules/*/domain/... imports only the standard library, shipd/platform/ids, shipd/platform/carrier, shipd/platform/fault and its own module's domain packages"
	rule2bText = "shipd/platform/fault imports only the standard library (domain may import it only because of that; ADR 0005)"
	rule3Text  = "shipd/modules/*/app/... never imports shipd/modules/*/adapters/..., shipd/modules/*/ports/..., shipd/adapters/..., sqlx, lib/pq, gorilla/mux, net/http or database/sql"
	rule4Text  = "shipd/platform/... imports no shipd/modules/..., no shipd/adapters/..., no shipd/dashboard/... and not the root package shipd"
	rule4bText = "shipd/adapters/... imports no shipd/modules/... and not the root package shipd"
	rule5Text  = "SQL in shipd/modules/<m>/ touches only the schema <m>"
	rule5bText = "a migration named after module <m> creates and alters objects only in the schema <m>"
	rule6Text  = "every directory under modules/ has module.go and the subdirectories domain/, app/, ports/, adapters/, contract/"
	rule7Text  = "shipd/dashboard/... imports from the modules only shipd/modules/*/contract (and its subpackages), never a module's root package, app, domain, ports or adapters"
)

// violation is one broken rule at one place.
type violation struct {
	Pos     string // slash path relative to the module root, with ":line" when known
	Subject string // what breaks the rule: `import "x"`, `SQL "from a.b"`, `missing app/`
	Rule    int
	Text    string
}

func (v violation) String() string {
	return fmt.Sprintf("%s: %s breaks rule %d: %s", v.Pos, v.Subject, v.Rule, v.Text)
}

// ---------------------------------------------------------------------------
// Rules 1-4 and 7: imports.

// importRule forbids some imports to some packages. Both functions take
// import paths: pkg is the importing package, imp the imported one.
type importRule struct {
	num     int
	text    string
	applies func(pkg string) bool
	forbids func(pkg, imp string) bool
}

var importRules = []importRule{
	{
		num:     1,
		text:    rule1Text,
		applies: func(pkg string) bool { _, ok := moduleOf(pkg); return ok },
		forbids: func(pkg, imp string) bool {
			x, _ := moduleOf(pkg)
			y, ok := moduleOf(imp)
			if !ok || y == x {
				return false
			}
			return !under(imp, modulesPath+"/"+y+"/contract")
		},
	},
	{
		num:     2,
		text:    rule2Text,
		applies: inLayer("domain"),
		forbids: func(pkg, imp string) bool {
			if isStdlib(imp) {
				return false
			}
			switch imp {
			case idsPath, carrierPath, faultPath:
				return false
			}
			x, _ := moduleOf(pkg)
			return !under(imp, modulesPath+"/"+x+"/domain")
		},
	},
	{
		num:     2,
		text:    rule2bText,
		applies: func(pkg string) bool { return under(pkg, faultPath) },
		forbids: func(_, imp string) bool { return !isStdlib(imp) },
	},
	{
		num:     3,
		text:    rule3Text,
		applies: inLayer("app"),
		forbids: func(_, imp string) bool {
			if _, layer, ok := layerOf(imp); ok && (layer == "adapters" || layer == "ports") {
				return true
			}
			for _, p := range []string{
				adaptersPath,
				"github.com/jmoiron/sqlx",
				"github.com/lib/pq",
				"github.com/gorilla/mux",
				"net/http",
				"database/sql",
			} {
				if under(imp, p) {
					return true
				}
			}
			return false
		},
	},
	{
		num:     4,
		text:    rule4Text,
		applies: func(pkg string) bool { return under(pkg, platformPath) },
		forbids: func(_, imp string) bool {
			// The dashboard is a driving adapter the composition root hands
			// to the server (server.Frontend), never a platform dependency.
			return imp == modulePath || under(imp, modulesPath) || under(imp, adaptersPath) || under(imp, dashboardPath)
		},
	},
	{
		num:     4,
		text:    rule4bText,
		applies: func(pkg string) bool { return under(pkg, adaptersPath) },
		forbids: func(_, imp string) bool {
			return imp == modulePath || under(imp, modulesPath)
		},
	},
	{
		// The dashboard reaches the modules through /v1 only (ADR 0027); it
		// may read their answers into their published records, but not call
		// or know their insides.
		num:     7,
		text:    rule7Text,
		applies: func(pkg string) bool { return under(pkg, dashboardPath) },
		forbids: func(_, imp string) bool {
			if !under(imp, modulesPath) {
				return false
			}
			y, ok := moduleOf(imp)
			return !ok || !under(imp, modulesPath+"/"+y+"/contract")
		},
	},
}

// checkImport reports every rule that the import imp of file breaks. file is
// a slash path relative to the module root, e.g. "modules/shipments/app/x.go".
func checkImport(file, imp string) []violation {
	pkg := packageOf(file)
	var vs []violation
	for _, r := range importRules {
		if r.applies(pkg) && r.forbids(pkg, imp) {
			vs = append(vs, violation{Pos: file, Subject: fmt.Sprintf("import %q", imp), Rule: r.num, Text: r.text})
		}
	}
	return vs
}

// packageOf gives the import path of the package a file belongs to.
func packageOf(file string) string {
	dir := path.Dir(file)
	if dir == "." || dir == "" {
		return modulePath
	}
	return modulePath + "/" + dir
}

// under reports whether p is prefix or a package below it.
func under(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// moduleOf gives X for shipd/modules/X/... .
func moduleOf(p string) (string, bool) {
	rest, ok := strings.CutPrefix(p, modulesPath+"/")
	if !ok || rest == "" {
		return "", false
	}
	name, _, _ := strings.Cut(rest, "/")
	return name, true
}

// layerOf gives X and L for shipd/modules/X/L/... .
func layerOf(p string) (module, layer string, ok bool) {
	rest, ok := strings.CutPrefix(p, modulesPath+"/")
	if !ok {
		return "", "", false
	}
	parts := strings.SplitN(rest, "/", 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" {
		return "", "", false
	}
	return parts[0], parts[1], true
}

func inLayer(layer string) func(pkg string) bool {
	return func(pkg string) bool {
		_, l, ok := layerOf(pkg)
		return ok && l == layer
	}
}

// isStdlib uses the go command's own test: a standard-library path has no dot
// in its first element. The module path "shipd" has none either, so it is
// excluded first.
func isStdlib(imp string) bool {
	if under(imp, modulePath) {
		return false
	}
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".")
}

// ---------------------------------------------------------------------------
// Rule 5: SQL stays in its module's schema.

// sqlInGo finds schema-qualified names after SQL keywords in Go string
// literals. Keywords are case-insensitive; the name must start with a
// lower-case letter or "_" (SQL names here are snake_case), which keeps
// English like "into channels.OpenSession" in error messages out.
var sqlInGo = regexp.MustCompile(`(?i:\b(?:from|join|into|update|table|truncate|references)\s+(?:only\s+)?(?:if\s+(?:not\s+)?exists\s+)?(?:only\s+)?)"?([A-Za-z_][A-Za-z0-9_]*)"?\s*\.\s*"?([a-z_][A-Za-z0-9_]*)`)

// sqlInFile is the same for .sql files (migrations and query files), which
// hold no prose, so it also looks after ON (indexes, grants), TYPE, VIEW,
// SEQUENCE and FUNCTION.
var sqlInFile = regexp.MustCompile(`(?i:\b(?:from|join|into|update|table|truncate|references|on|type|view|sequence|function)\s+(?:only\s+)?(?:if\s+(?:not\s+)?exists\s+)?(?:only\s+)?)"?([A-Za-z_][A-Za-z0-9_]*)"?\s*\.\s*"?([a-z_][A-Za-z0-9_]*)`)

// sqlSchema finds CREATE/ALTER/DROP SCHEMA and ... ON SCHEMA x in .sql files.
var sqlSchema = regexp.MustCompile(`(?i:\bschema\s+(?:if\s+(?:not\s+)?exists\s+)?)"?([A-Za-z_][A-Za-z0-9_]*)`)

// checkSQL reports every schema-qualified reference in sql (Go literal text
// when inFile is false, .sql file text when true) that names a known schema
// other than own. Qualifiers that are not schema names (table aliases, as in
// "EXTRACT(EPOCH FROM s.created_at)" or "IS DISTINCT FROM excluded.version")
// are ignored. firstLine is the line sql starts at; 0 means unknown.
func checkSQL(file string, firstLine int, own, sql string, inFile bool, known []string, text string) []violation {
	re := sqlInGo
	if inFile {
		re = sqlInFile
		sql = stripSQLComments(sql)
	}
	var vs []violation
	report := func(start, end int, schema string) {
		schema = strings.ToLower(schema)
		if schema == own || !slices.Contains(known, schema) {
			return
		}
		pos := file
		if firstLine > 0 {
			pos = fmt.Sprintf("%s:%d", file, firstLine+strings.Count(sql[:start], "\n"))
		}
		vs = append(vs, violation{
			Pos:     pos,
			Subject: fmt.Sprintf("SQL %q (schema %s)", oneLine(sql[start:end]), schema),
			Rule:    5,
			Text:    strings.ReplaceAll(text, "<m>", own),
		})
	}
	for _, m := range re.FindAllStringSubmatchIndex(sql, -1) {
		report(m[0], m[1], sql[m[2]:m[3]])
	}
	if inFile {
		for _, m := range sqlSchema.FindAllStringSubmatchIndex(sql, -1) {
			report(m[0], m[1], sql[m[2]:m[3]])
		}
	}
	return vs
}

// stripSQLComments blanks "--" line comments, keeping the line count.
func stripSQLComments(sql string) string {
	lines := strings.Split(sql, "\n")
	for i, l := range lines {
		if j := strings.Index(l, "--"); j >= 0 {
			lines[i] = l[:j]
		}
	}
	return strings.Join(lines, "\n")
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// checkMigration applies rule 5 to one migration file: when its name contains
// a module name it may create or alter objects only in that module's schema.
// A migration whose name names no module (e.g. 00001_platform.sql) is not
// checked; one that names several modules is reported, since it cannot belong
// to one schema.
func checkMigration(file, sql string, modules, known []string) []violation {
	base := strings.ToLower(path.Base(file))
	var owners []string
	for _, m := range modules {
		if strings.Contains(base, m) {
			owners = append(owners, m)
		}
	}
	switch len(owners) {
	case 0:
		return nil
	case 1:
		return checkSQL(file, 1, owners[0], sql, true, known, rule5bText)
	default:
		return []violation{{
			Pos:     file,
			Subject: fmt.Sprintf("a name naming modules %s", strings.Join(owners, ", ")),
			Rule:    5,
			Text:    "a migration belongs to at most one module: " + rule5bText,
		}}
	}
}

// ---------------------------------------------------------------------------
// Rules 1-5 on one Go file.

// checkGoFile parses one non-test Go file and checks its imports (rules 1-4, 7)
// and, for files under modules/<m>/, its string literals (rule 5).
func checkGoFile(fset *token.FileSet, file string, src []byte, known []string) ([]violation, error) {
	mod, inModule := moduleOf(packageOf(file))
	mode := parser.ImportsOnly
	if inModule {
		mode = parser.SkipObjectResolution // the literals are needed too
	}
	f, err := parser.ParseFile(fset, file, src, mode)
	if err != nil {
		return nil, err
	}
	var vs []violation
	for _, spec := range f.Imports {
		imp, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: import %s: %v", file, spec.Path.Value, err)
		}
		line := fset.Position(spec.Pos()).Line
		for _, v := range checkImport(file, imp) {
			v.Pos = fmt.Sprintf("%s:%d", file, line)
			vs = append(vs, v)
		}
	}
	if !inModule {
		return vs, nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if _, isImport := importPathLit(f, lit); isImport {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		line := fset.Position(lit.Pos()).Line
		if !strings.HasPrefix(lit.Value, "`") {
			// An interpreted literal is on one line; escaped newlines
			// must not move the reported line.
			s = strings.ReplaceAll(s, "\n", " ")
		}
		vs = append(vs, checkSQL(file, line, mod, s, false, known, rule5Text)...)
		return true
	})
	return vs, nil
}

func importPathLit(f *ast.File, lit *ast.BasicLit) (string, bool) {
	for _, spec := range f.Imports {
		if spec.Path == lit {
			return lit.Value, true
		}
	}
	return "", false
}

// ---------------------------------------------------------------------------
// Rule 6: module shape.

// checkModuleShape reports what each directory under root/modules lacks.
func checkModuleShape(root string, modules []string) []violation {
	var vs []violation
	for _, m := range modules {
		var missing []string
		for _, part := range moduleParts {
			name, wantDir := strings.CutSuffix(part, "/")
			fi, err := os.Stat(filepath.Join(root, "modules", m, name))
			if err != nil || fi.IsDir() != wantDir {
				missing = append(missing, part)
			}
		}
		if len(missing) > 0 {
			vs = append(vs, violation{
				Pos:     "modules/" + m + "/",
				Subject: "missing " + strings.Join(missing, ", "),
				Rule:    6,
				Text:    rule6Text,
			})
		}
	}
	return vs
}

// ---------------------------------------------------------------------------
// The walk.

// report is what checkTree found.
type report struct {
	Violations []violation
	GoFiles    int // non-test Go files checked
	SQLFiles   int // migrations and module .sql files checked
	Modules    []string
}

// listModules gives the directories under root/modules (none when it is absent).
func listModules(root string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, "modules"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ms []string
	for _, e := range entries {
		if e.IsDir() && !skipDir(e.Name()) {
			ms = append(ms, e.Name())
		}
	}
	return ms, nil
}

// skipDir says which directories hold no module code: hidden ones (.git,
// .data, ...), "_" ones (ignored by the go command), testdata and vendor.
func skipDir(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
		name == "testdata" || name == "vendor" || name == "node_modules"
}

// checkTree checks every rule over the module rooted at root.
func checkTree(root string) (report, error) {
	var rep report
	found, err := listModules(root)
	if err != nil {
		return rep, err
	}
	rep.Modules = found
	modules := union(fixedModules, found)
	known := union(modules, sharedSchemas)

	fset := token.NewFileSet()
	var parseErrs []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == "." {
				return nil
			}
			if skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
				return filepath.SkipDir // a nested module is not this module
			}
			return nil
		}
		name := d.Name()
		if strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		switch {
		case strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			vs, err := checkGoFile(fset, rel, src, known)
			if err != nil {
				parseErrs = append(parseErrs, err.Error())
				return nil
			}
			rep.GoFiles++
			rep.Violations = append(rep.Violations, vs...)
		case strings.HasSuffix(name, ".sql"):
			var vs []violation
			if path.Dir(rel) == migrationsDir {
				src, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				vs = checkMigration(rel, string(src), modules, known)
			} else if m, ok := moduleOf(packageOf(rel)); ok {
				src, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				vs = checkSQL(rel, 1, m, string(src), true, known, rule5Text)
			} else {
				return nil
			}
			rep.SQLFiles++
			rep.Violations = append(rep.Violations, vs...)
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	if len(parseErrs) > 0 {
		return rep, fmt.Errorf("cannot parse:\n\t%s", strings.Join(parseErrs, "\n\t"))
	}
	rep.Violations = append(rep.Violations, checkModuleShape(root, found)...)
	return rep, nil
}

func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	sort.Strings(out)
	return out
}

// moduleRoot walks up from the working directory to the directory holding
// go.mod and checks that it is the module the rules are written for.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		gomod := filepath.Join(dir, "go.mod")
		if src, err := os.ReadFile(gomod); err == nil {
			if got := goModModule(src); got != modulePath {
				return "", fmt.Errorf("%s declares module %q; the rules are written for %q", gomod, got, modulePath)
			}
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// goModModule reads the module path from go.mod text.
func goModModule(src []byte) string {
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
}

// TestArchitecture checks the rules over this repository. With no modules/
// yet, rules 1-3, 5 and 6 have nothing to check and it passes on what exists.
func TestArchitecture(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	rep, err := checkTree(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Modules) == 0 {
		t.Logf("no modules/ directory yet: module rules have nothing to check")
	}
	t.Logf("checked %d Go files, %d SQL files, modules %v", rep.GoFiles, rep.SQLFiles, rep.Modules)
	for _, v := range rep.Violations {
		t.Error(v)
	}
}
