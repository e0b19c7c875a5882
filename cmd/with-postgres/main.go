// Command with-postgres runs a command with DATABASE_URL pointing at a
// throwaway PostgreSQL cluster, then removes the cluster. `make test` uses
// it when no DATABASE_URL is set:
//
//	go run ./cmd/with-postgres -- go test ./...
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"shipd/platform/postgres/localcluster"
)

func main() {
	os.Exit(run())
}

func run() int {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: with-postgres -- COMMAND [ARGS...]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	logf := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "with-postgres: "+format+"\n", a...) }
	// Tests run side by side (t.Parallel, and the split topology's four
	// processes each with its pool): PostgreSQL's 100, or the cluster's
	// default 200, would be reached before the machine is busy. 800 was
	// reached too once tests of two and three instances, and of shipd
	// processes racing one another, ran four packages at a time ("too many
	// clients" in the subscribers of another package's test); an idle
	// backend costs a few MB, so 1600 leaves room.
	cluster, err := localcluster.StartThrowawayWith(ctx, logf, localcluster.ThrowawayOptions{MaxConnections: 1600})
	if err != nil {
		fmt.Fprintln(os.Stderr, "with-postgres:", err)
		return 1
	}
	defer func() {
		if err := cluster.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "with-postgres: stopping cluster:", err)
		}
	}()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "DATABASE_URL="+cluster.DSN())
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		fmt.Fprintln(os.Stderr, "with-postgres:", err)
		return 1
	}
	return 0
}
