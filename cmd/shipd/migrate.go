package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"shipd"
	"shipd/migrations"
	"shipd/platform/clock"
)

func migrateCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "migrate", Short: "Apply or inspect database migrations"}
	cmd.AddCommand(&cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration and create the event topics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig()
			if err != nil {
				return err
			}
			app, cleanup, err := shipd.InitializeApp(cmd.Context(), cfg, clock.Real{})
			if err != nil {
				return err
			}
			defer cleanup()
			if err := app.Migrate(cmd.Context()); err != nil {
				return err
			}
			fmt.Fprintln(cmd.OutOrStdout(), "migrations applied")
			return nil
		},
	}, &cobra.Command{
		Use:   "status",
		Short: "List migrations and whether each is applied",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, cleanup, err := openDatabase(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			return migrations.PrintStatus(cmd.Context(), db.DB, cmd.OutOrStdout())
		},
	})
	return cmd
}
