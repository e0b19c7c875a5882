// Package architecture holds the architecture of shipd in words and in tests.
//
// README.md draws the layout, the context map, the event flow and the request
// path; decisions/ holds the architecture decision records (ADRs). The tests in
// this directory (imports_test.go) parse every non-test Go file of the module
// and fail when a dependency rule of README.md is broken: cross-module imports,
// what domain/ and app/ may import, what platform/ and adapters/ may import,
// SQL that leaves its module's schema, the inner shape of every module, and
// what the dashboard may import of the modules.
//
// The package has no code of its own; it exists so that `go test ./architecture/`
// runs the rules.
package architecture
