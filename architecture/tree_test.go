package architecture_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// parseGoTree parses every non-test Go file below dir (a slash path under
// root, "." for all of it), skipping the directories that hold no module
// code (skipDir), and hands each file to visit with its slash path relative
// to root, the name every violation is reported under.
func parseGoTree(fset *token.FileSet, root, dir string, visit func(rel string, f *ast.File)) error {
	base := filepath.Join(root, filepath.FromSlash(dir))
	return filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != base && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		visit(rel, f)
		return nil
	})
}

// checkRepository runs one rule's checker over this repository and reports
// every violation it finds. The checker also says how much it read: fewer
// than least means it looked in the wrong place, and a green run would say
// nothing, so tooFew (a format of that count) fails the test instead.
func checkRepository(t *testing.T, check func(root string) (read int, vs []violation, err error), least int, tooFew string) {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	read, vs, err := check(root)
	if err != nil {
		t.Fatal(err)
	}
	if read < least {
		t.Fatalf(tooFew, read)
	}
	for _, v := range vs {
		t.Error(v)
	}
}
