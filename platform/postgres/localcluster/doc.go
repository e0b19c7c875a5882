// Package localcluster runs a private PostgreSQL cluster from the machine's
// server binaries, so shipd works without a DATABASE_URL and tests get a real
// database without a shared server.
//
// The cluster listens only on a unix socket inside its own directory, so any
// number of them (and a system cluster) can coexist without port clashes.
package localcluster
