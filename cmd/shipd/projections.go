package main

import (
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"shipd"
	"shipd/platform/clock"
	"shipd/platform/projection"
)

func projectionsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "projections", Short: "List and rebuild the read models built from events"}
	cmd.AddCommand(projectionsListCommand(), projectionsRebuildCommand())
	return cmd
}

// projectionCatalog composes the service as serve does and applies pending
// migrations (the event topics' tables among them), as serve would first.
func projectionCatalog(cmd *cobra.Command) (*projection.Catalog, func(), error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, err
	}
	app, cleanup, err := shipd.InitializeApp(cmd.Context(), cfg, clock.Real{})
	if err != nil {
		return nil, nil, err
	}
	if err := app.Migrate(cmd.Context()); err != nil {
		cleanup()
		return nil, nil, err
	}
	return app.Projections(), cleanup, nil
}

func projectionsListCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the read models, their tables and the events a rebuild would replay",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			catalog, cleanup, err := projectionCatalog(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tEVENTS\tTABLES\tTOPICS")
			for _, p := range catalog.Projections() {
				n, err := catalog.Events(cmd.Context(), p.Name)
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", p.Name, n, strings.Join(p.Tables, ","), strings.Join(p.Sources(), ","))
			}
			return tw.Flush()
		},
	}
}

func projectionsRebuildCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "rebuild [NAME]",
		Short: "Rebuild a read model (every one without NAME) from its events while the service keeps serving",
		Long: `Replays every event of the read model into new tables, catches up with the events
committed meanwhile, then swaps the new tables for the live ones in one short
transaction. The list endpoints go on answering from the old tables until the swap.
Progress goes to standard error: a bar with an ETA on a terminal, a line every 2 s otherwise.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			catalog, cleanup, err := projectionCatalog(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			var names []string
			for _, p := range catalog.Projections() {
				names = append(names, p.Name)
			}
			if len(args) == 1 {
				if _, err := catalog.Find(args[0]); err != nil {
					return err
				}
				names = args
			}
			for _, name := range names {
				view := newProgressView(os.Stderr, name)
				report, err := catalog.Rebuild(cmd.Context(), name, view.update)
				view.finish(err)
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "rebuilt %s from %d events in %s (%d committed meanwhile; live writes waited %s for the swap)\n",
					report.Name, report.Events, report.Took.Round(time.Millisecond), report.CaughtUp, report.Locked.Round(time.Millisecond))
			}
			return nil
		},
	}
}
