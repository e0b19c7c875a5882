package shipd

// The served document is the one source of the generated types and client;
// `make generate` runs this, and `make check-generated` fails when the
// committed file differs from a fresh run.
//go:generate go tool oapi-codegen -config oapi-codegen.yaml -o shipd.gen.go ../../platform/apidoc/openapi.json
