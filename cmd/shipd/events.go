package main

import (
	"errors"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"shipd/migrations"
	"shipd/platform/messaging"
)

func eventsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "events", Short: "List and retry the messages consumers set aside (dead letters)"}
	cmd.AddCommand(eventsListCommand(), eventsRetryCommand())
	return cmd
}

func eventsListCommand() *cobra.Command {
	var all bool
	var limit int
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the dead letters waiting for a retry, newest first (--all: the retried ones too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, cleanup, err := openModuleDatabase(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			if _, err := migrations.Up(cmd.Context(), db.DB); err != nil {
				return err
			}
			letters, err := messaging.DeadLetters(cmd.Context(), db, !all, limit)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tCONSUMER GROUP\tSTREAM\tEVENT\tMESSAGE\tFAILED AT\tRETRIED AT\tERROR")
			for _, d := range letters {
				retried := "-"
				if d.RetriedAt != nil {
					retried = d.RetriedAt.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", d.ID, d.ConsumerGroup, d.Stream, d.Name, d.MessageUUID,
					d.FailedAt.UTC().Format(time.RFC3339), retried, d.Error)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "also list dead letters already retried")
	cmd.Flags().IntVar(&limit, "limit", 100, "at most this many")
	return cmd
}

func eventsRetryCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "retry ID...",
		Short: "Put dead letters back at the end of their stream, for the consumer group that set them aside",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ids := make([]int64, len(args))
			for i, a := range args {
				id, err := strconv.ParseInt(a, 10, 64)
				if err != nil || id <= 0 {
					return fmt.Errorf("%q is not a dead letter id (a positive number from shipd events list)", a)
				}
				ids[i] = id
			}
			db, cleanup, err := openModuleDatabase(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			var errs []error
			for _, id := range ids {
				if err := messaging.RetryDeadLetter(cmd.Context(), db, id); err != nil {
					errs = append(errs, fmt.Errorf("dead letter %d: %w", id, err))
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "dead letter %d is back on its stream\n", id)
			}
			return errors.Join(errs...)
		},
	}
}
