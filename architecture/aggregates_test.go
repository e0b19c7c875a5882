package architecture_test

// Rule 9: one aggregate style (ADR 0036). Every module's domain declares
// the record a repository keeps (Stored), the aggregate holds it in one
// unexported field, hands a copy out (Stored()) and is rebuilt by
// Restore; Restore is called only from the module's own adapters, so
// nothing else can make an aggregate its constructors would refuse. The
// checker reads syntax; its unit tests are in aggregates_rules_test.go.

import (
	"fmt"
	"go/ast"
	"go/token"
	"path"
	"strconv"
	"strings"
	"testing"
)

const rule9Text = "a module's aggregate keeps its state in one unexported field of the domain's type Stored, hands a copy out " +
	"by its method Stored() Stored, and is rebuilt by domain.Restore(Stored, ...), which only the module's own adapters call"

// aggregateDomain collects, over the non-test files of one module's
// domain package, what rule 9 asks it to declare.
type aggregateDomain struct {
	rel           string // the package's directory, for messages
	storedType    bool
	restoreOf     string // the type Restore returns a pointer to, "" when there is no Restore
	restorePos    string
	storedMethods map[string]bool     // receivers with a method Stored() Stored
	holders       map[string][]string // struct types -> their fields of type Stored
	exported      map[string]bool     // holder fields that are exported
}

func newAggregateDomain(rel string) *aggregateDomain {
	return &aggregateDomain{rel: rel, storedMethods: map[string]bool{}, holders: map[string][]string{}, exported: map[string]bool{}}
}

// read notes what one file of the domain package declares.
func (d *aggregateDomain) read(fset *token.FileSet, rel string, f *ast.File) {
	for _, decl := range f.Decls {
		switch decl := decl.(type) {
		case *ast.GenDecl:
			for _, ts := range structTypes(decl) {
				if ts.Name.Name == "Stored" {
					d.storedType = true
					continue
				}
				for _, field := range ts.Type.(*ast.StructType).Fields.List {
					if exprString(field.Type) != "Stored" {
						continue
					}
					for _, n := range field.Names {
						d.holders[ts.Name.Name] = append(d.holders[ts.Name.Name], n.Name)
						d.exported[ts.Name.Name] = d.exported[ts.Name.Name] || n.IsExported()
					}
					if len(field.Names) == 0 { // embedded: its fields are promoted, so exported
						d.holders[ts.Name.Name] = append(d.holders[ts.Name.Name], "Stored")
						d.exported[ts.Name.Name] = true
					}
				}
			}
		case *ast.FuncDecl:
			params, results := flatten(decl.Type.Params), flatten(decl.Type.Results)
			switch {
			case decl.Recv == nil && decl.Name.Name == "Restore":
				d.restorePos = fmt.Sprintf("%s:%d", rel, fset.Position(decl.Pos()).Line)
				if len(params) >= 1 && exprString(params[0]) == "Stored" && len(results) == 1 && strings.HasPrefix(exprString(results[0]), "*") {
					d.restoreOf = strings.TrimPrefix(exprString(results[0]), "*")
				} else {
					d.restoreOf = "?"
				}
			case decl.Recv != nil && decl.Name.Name == "Stored" && len(params) == 0 && len(results) == 1 && exprString(results[0]) == "Stored":
				d.storedMethods[receiverName(decl.Recv)] = true
			}
		}
	}
}

// violations says what the package lacks.
func (d *aggregateDomain) violations() []violation {
	bad := func(pos, subject string) violation {
		return violation{Pos: pos, Subject: subject, Rule: 9, Text: rule9Text}
	}
	var vs []violation
	if !d.storedType {
		vs = append(vs, bad(d.rel, "no type Stored"))
	}
	switch d.restoreOf {
	case "":
		return append(vs, bad(d.rel, "no func Restore"))
	case "?":
		return append(vs, bad(d.restorePos, "func Restore that takes no Stored first or returns no pointer to the aggregate"))
	}
	agg := d.restoreOf
	if fields := d.holders[agg]; len(fields) != 1 || d.exported[agg] {
		vs = append(vs, bad(d.restorePos, fmt.Sprintf("aggregate %s holding Stored in %q (want one unexported field)", agg, fields)))
	}
	if !d.storedMethods[agg] && !d.storedMethods["*"+agg] {
		vs = append(vs, bad(d.restorePos, "aggregate "+agg+" without method Stored() Stored"))
	}
	return vs
}

// restoreCalls lists the calls to a module domain's Restore in a non-test
// file at rel that is not of that module's adapters.
func restoreCalls(fset *token.FileSet, rel string, f *ast.File) []violation {
	domains := map[string]string{} // local name -> module of an imported modules/<m>/domain
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		parts := strings.Split(path, "/")
		if (len(parts) != 4 && len(parts) != 5) || parts[0] != modulePath || parts[1] != "modules" || parts[3] != "domain" {
			continue
		}
		name := parts[len(parts)-1]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		domains[name] = parts[2]
	}
	var vs []violation
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Restore" {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok || domains[x.Name] == "" {
			return true
		}
		if !strings.HasPrefix(rel, "modules/"+domains[x.Name]+"/adapters/") {
			vs = append(vs, violation{Pos: fmt.Sprintf("%s:%d", rel, fset.Position(call.Pos()).Line),
				Subject: "call of " + domains[x.Name] + "'s domain.Restore", Rule: 9, Text: rule9Text})
		}
		return true
	})
	return vs
}

// checkAggregateTree applies rule 9 to every non-test Go file of the tree:
// each module's domain package, and every call of a domain's Restore. A
// module with several aggregates keeps each in a package of its own under
// its domain (dispatch: domain/pickup, domain/manifest), each held to the
// rule, and its domain package holds what they share; a module whose domain
// has no such package is held to the rule in its domain package.
func checkAggregateTree(root string) (modules int, vs []violation, err error) {
	fset := token.NewFileSet()
	byDir := map[string]*aggregateDomain{}
	module := map[string]string{} // domain dir -> its module
	err = parseGoTree(fset, root, ".", func(rel string, f *ast.File) {
		vs = append(vs, restoreCalls(fset, rel, f)...)
		if parts := strings.Split(rel, "/"); (len(parts) == 4 || len(parts) == 5) && parts[0] == "modules" && parts[2] == "domain" {
			dir := path.Dir(rel)
			if byDir[dir] == nil {
				byDir[dir] = newAggregateDomain(dir)
				module[dir] = parts[1]
			}
			byDir[dir].read(fset, rel, f)
		}
	})
	aggregates := map[string]int{} // module -> packages declaring an aggregate
	for dir, d := range byDir {
		if d.storedType || d.restoreOf != "" {
			aggregates[module[dir]]++
		}
	}
	tops := map[string]bool{}
	for dir, d := range byDir {
		top := strings.Count(dir, "/") == 2
		if top {
			tops[module[dir]] = true
		}
		if d.storedType || d.restoreOf != "" || (top && aggregates[module[dir]] == 0) {
			vs = append(vs, d.violations()...)
		}
	}
	return len(tops), vs, err
}

func TestAggregateStyle(t *testing.T) {
	checkRepository(t, checkAggregateTree, 5, "rule 9 read %d modules' domain packages; expected the five")
}
