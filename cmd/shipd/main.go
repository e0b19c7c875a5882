// Command shipd is the multi-carrier shipping API: serve it, migrate its
// database and manage API keys.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"shipd/platform/config"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := rootCommand().ExecuteContext(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "shipd:", err)
		os.Exit(1)
	}
}

func rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "shipd",
		Short:         "One JSON HTTP API in front of many parcel carriers",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCommand(), migrateCommand(), keysCommand(), usersCommand(), projectionsCommand(), eventsCommand(), localdbCommand())
	return root
}

// loadConfig reads the environment the same way for every subcommand.
func loadConfig() (config.Config, error) {
	return config.Load()
}
