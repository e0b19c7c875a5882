package architecture_test

// Rule 8: one shape for every use case (ADR 0035). The checker reads the
// syntax of modules/<m>/app/command, app/query and app/app.go; its own unit
// tests are in handlers_rules_test.go.

import (
	"fmt"
	"go/ast"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

const rule8Text = "a module's use case is a type XHandler in app/command with the one method Handle(ctx context.Context, cmd C) error, " +
	"or in app/query with Handle(ctx context.Context, q Q) (R, error), built only by NewXHandler, which returns " +
	"usecase.Command(...) as a usecase.CommandHandler[C] (usecase.Query(...) as a usecase.QueryHandler[Q, R]); " +
	"app.go's Commands and Queries hold only those"

// useCaseKind is "command" or "query" for a file of a module's app/command
// or app/query package (or below), "app" for the app package itself.
func useCaseKind(rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) < 4 || parts[0] != "modules" || parts[2] != "app" {
		return ""
	}
	if len(parts) == 4 {
		return "app"
	}
	switch parts[3] {
	case "command", "query":
		return parts[3]
	}
	return ""
}

// checkHandlerShape checks one parsed non-test file against rule 8.
func checkHandlerShape(fset *token.FileSet, rel string, f *ast.File) []violation {
	kind := useCaseKind(rel)
	if kind == "" {
		return nil
	}
	var vs []violation
	bad := func(n ast.Node, subject string) {
		vs = append(vs, violation{Pos: fmt.Sprintf("%s:%d", rel, fset.Position(n.Pos()).Line), Subject: subject, Rule: 8, Text: rule8Text})
	}
	if kind == "app" {
		for _, d := range f.Decls {
			for _, st := range structTypes(d) {
				want := map[string]string{"Commands": "CommandHandler", "Queries": "QueryHandler"}[st.Name.Name]
				if want == "" {
					continue
				}
				for _, field := range st.Type.(*ast.StructType).Fields.List {
					if genericName(field.Type) != "usecase."+want {
						bad(field, fmt.Sprintf("%s field of type %s", st.Name.Name, exprString(field.Type)))
					}
				}
			}
		}
		return vs
	}
	wantResult, wantBuild := "usecase.CommandHandler", "usecase.Command"
	if kind == "query" {
		wantResult, wantBuild = "usecase.QueryHandler", "usecase.Query"
	}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || !fd.Name.IsExported() {
			continue
		}
		if fd.Recv != nil {
			recv := receiverName(fd.Recv)
			if !strings.HasSuffix(recv, "Handler") {
				continue
			}
			if fd.Name.Name != "Handle" {
				bad(fd, fmt.Sprintf("method %s.%s (a use case has only Handle)", recv, fd.Name.Name))
				continue
			}
			if !handleShape(fd.Type, kind) {
				bad(fd, fmt.Sprintf("%s.Handle%s", recv, signature(fd.Type)))
			}
			continue
		}
		name := fd.Name.Name
		if !strings.HasPrefix(name, "New") || !strings.HasSuffix(name, "Handler") {
			continue
		}
		res := fd.Type.Results
		if res == nil || len(res.List) != 1 || len(res.List[0].Names) > 1 || genericName(res.List[0].Type) != wantResult {
			bad(fd, fmt.Sprintf("func %s%s (returns no %s)", name, signature(fd.Type), wantResult))
			continue
		}
		if !returnsCallTo(fd.Body, wantBuild) {
			bad(fd, fmt.Sprintf("func %s does not return %s(...)", name, wantBuild))
		}
	}
	return vs
}

func structTypes(d ast.Decl) []*ast.TypeSpec {
	gd, ok := d.(*ast.GenDecl)
	if !ok || gd.Tok != token.TYPE {
		return nil
	}
	var out []*ast.TypeSpec
	for _, s := range gd.Specs {
		if ts := s.(*ast.TypeSpec); isStruct(ts.Type) {
			out = append(out, ts)
		}
	}
	return out
}

func isStruct(e ast.Expr) bool { _, ok := e.(*ast.StructType); return ok }

// handleShape: Handle(context.Context, X) error for commands,
// Handle(context.Context, X) (R, error) for queries.
func handleShape(ft *ast.FuncType, kind string) bool {
	params := flatten(ft.Params)
	results := flatten(ft.Results)
	if len(params) != 2 || exprString(params[0]) != "context.Context" {
		return false
	}
	if kind == "command" {
		return len(results) == 1 && exprString(results[0]) == "error"
	}
	return len(results) == 2 && exprString(results[1]) == "error"
}

// flatten lists one type per parameter or result (a, b T is T twice).
func flatten(fl *ast.FieldList) []ast.Expr {
	if fl == nil {
		return nil
	}
	var out []ast.Expr
	for _, f := range fl.List {
		for range max(1, len(f.Names)) {
			out = append(out, f.Type)
		}
	}
	return out
}

func receiverName(fl *ast.FieldList) string {
	t := fl.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	return exprString(t)
}

// genericName is "pkg.Name" of pkg.Name[T...], or of pkg.Name.
func genericName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.IndexExpr:
		return exprString(t.X)
	case *ast.IndexListExpr:
		return exprString(t.X)
	}
	return exprString(e)
}

// returnsCallTo reports whether every return in body returns a call to fn
// (pkg.Func, with or without type arguments), and there is one.
func returnsCallTo(body *ast.BlockStmt, fn string) bool {
	if body == nil {
		return false
	}
	found, all := false, true
	ast.Inspect(body, func(n ast.Node) bool {
		if _, ok := n.(*ast.FuncLit); ok {
			return false
		}
		ret, ok := n.(*ast.ReturnStmt)
		if !ok {
			return true
		}
		found = true
		call, ok := ret.Results[0].(*ast.CallExpr)
		if len(ret.Results) != 1 || !ok || genericName(call.Fun) != fn {
			all = false
		}
		return true
	})
	return found && all
}

func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.ArrayType:
		return "[]" + exprString(t.Elt)
	case *ast.IndexExpr:
		return exprString(t.X) + "[" + exprString(t.Index) + "]"
	case *ast.IndexListExpr:
		parts := make([]string, len(t.Indices))
		for i, ix := range t.Indices {
			parts[i] = exprString(ix)
		}
		return exprString(t.X) + "[" + strings.Join(parts, ", ") + "]"
	case *ast.MapType:
		return "map[" + exprString(t.Key) + "]" + exprString(t.Value)
	}
	return fmt.Sprintf("%T", e)
}

func signature(ft *ast.FuncType) string {
	list := func(es []ast.Expr) string {
		parts := make([]string, len(es))
		for i, e := range es {
			parts[i] = exprString(e)
		}
		return strings.Join(parts, ", ")
	}
	return "(" + list(flatten(ft.Params)) + ") (" + list(flatten(ft.Results)) + ")"
}

// handlersWithoutHandle lists, over the files of one package, the exported
// XHandler types that have no Handle method.
func handlersWithoutHandle(fset *token.FileSet, rels []string, files []*ast.File) []violation {
	declared := map[string]ast.Node{}
	where := map[string]string{}
	handled := map[string]bool{}
	for i, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if ts, ok := s.(*ast.TypeSpec); ok && ts.Name.IsExported() && strings.HasSuffix(ts.Name.Name, "Handler") {
						declared[ts.Name.Name], where[ts.Name.Name] = ts, rels[i]
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "Handle" {
					handled[receiverName(d.Recv)] = true
				}
			}
		}
	}
	var vs []violation
	for name, n := range declared {
		if !handled[name] {
			vs = append(vs, violation{Pos: fmt.Sprintf("%s:%d", where[name], fset.Position(n.Pos()).Line),
				Subject: "type " + name + " without Handle", Rule: 8, Text: rule8Text})
		}
	}
	return vs
}

// checkHandlerTree applies rule 8 to every non-test Go file of every
// module's app package.
func checkHandlerTree(root string) (files int, vs []violation, err error) {
	fset := token.NewFileSet()
	type pkg struct {
		rels  []string
		files []*ast.File
	}
	pkgs := map[string]*pkg{}
	defer func() {
		for _, p := range pkgs {
			vs = append(vs, handlersWithoutHandle(fset, p.rels, p.files)...)
		}
	}()
	err = parseGoTree(fset, root, "modules", func(rel string, f *ast.File) {
		if useCaseKind(rel) == "" {
			return
		}
		files++
		vs = append(vs, checkHandlerShape(fset, rel, f)...)
		dir := filepath.Dir(rel)
		if pkgs[dir] == nil {
			pkgs[dir] = &pkg{}
		}
		pkgs[dir].rels, pkgs[dir].files = append(pkgs[dir].rels, rel), append(pkgs[dir].files, f)
	})
	return files, vs, err
}

func TestHandlerShape(t *testing.T) {
	checkRepository(t, checkHandlerTree, 8, "rule 8 read %d files of the modules' app packages; expected every module's")
}
