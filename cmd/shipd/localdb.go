package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"shipd/platform/postgres/localcluster"
)

func localdbCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "localdb", Short: "Manage the local PostgreSQL cluster of local mode (no DATABASE_URL)"}
	cmd.AddCommand(&cobra.Command{
		Use:   "stop",
		Short: "Stop the local cluster under SHIPD_DATA_DIR/postgres (it keeps its data)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig()
			if err != nil {
				return err
			}
			dir := filepath.Join(cfg.DataDir, "postgres")
			if err := localcluster.Stop(cmd.Context(), localcluster.Config{Dir: dir}); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "local PostgreSQL under %s stopped\n", dir)
			return nil
		},
	})
	return cmd
}
