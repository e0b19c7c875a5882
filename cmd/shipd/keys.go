package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/jmoiron/sqlx"
	"github.com/spf13/cobra"

	"shipd/migrations"
	"shipd/platform/auth"
	"shipd/platform/clock"
	"shipd/platform/server"
)

func keysCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Create, list and revoke API keys"}
	cmd.AddCommand(keysCreateCommand(), keysListCommand(), keysRevokeCommand())
	return cmd
}

// openDatabase finds the database as serve does; key commands also make sure
// the schema exists, so they work before the first serve.
func openDatabase(cmd *cobra.Command) (*sqlx.DB, func(), error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, err
	}
	return server.OpenDatabase(cmd.Context(), cfg)
}

func keyStore(cmd *cobra.Command) (*auth.Store, func(), error) {
	db, cleanup, err := openDatabase(cmd)
	if err != nil {
		return nil, nil, err
	}
	if _, err := migrations.Up(cmd.Context(), db.DB); err != nil {
		cleanup()
		return nil, nil, err
	}
	return auth.NewStore(db, clock.Real{}), cleanup, nil
}

func keysCreateCommand() *cobra.Command {
	var account, plan, permissions, name string
	var rateLimit int
	cmd := &cobra.Command{
		Use:   "create --account NAME",
		Short: "Create an API key (and the account when new); the key is the last line of output",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req := auth.NewKeyRequest{AccountName: strings.TrimSpace(account), Name: name}
			if plan != "" {
				p, err := auth.ParsePlan(plan)
				if err != nil {
					return err
				}
				req.Plan = p
			}
			if cmd.Flags().Changed("rate-limit") {
				req.RateLimit = &rateLimit
			}
			perms, err := auth.ParsePermissions(permissions)
			if err != nil {
				return err
			}
			req.Permissions = perms
			store, cleanup, err := keyStore(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			info, key, err := store.CreateKey(cmd.Context(), req)
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "Created key %s for account %s (%s).\nPermissions: %s\nStore the key now; it is not shown again:\n%s\n",
				info.ID, info.AccountName, info.AccountID, strings.Join(info.Permissions, ","), key)
			if err != nil {
				// Nobody saw the key and it is never shown again: a live key of
				// no use to anyone, so it goes.
				if revokeErr := store.RevokeKey(context.WithoutCancel(cmd.Context()), info.ID); revokeErr != nil {
					return fmt.Errorf("key %s was created but could not be shown (%w), and revoking it failed (%v): revoke it with shipd keys revoke %s", info.ID, err, revokeErr, info.ID)
				}
				return fmt.Errorf("key %s was created but could not be shown (%w), so it is revoked; create another", info.ID, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&account, "account", "", "account name (created when new)")
	cmd.Flags().StringVar(&plan, "plan", "", "free, standard or enterprise (default: free for a new account, unchanged otherwise)")
	cmd.Flags().IntVar(&rateLimit, "rate-limit", 0, "requests per minute for the account, overriding its plan")
	cmd.Flags().StringVar(&permissions, "permissions", "", "comma-separated, e.g. channels:read,shipments:write (default: all)")
	cmd.Flags().StringVar(&name, "name", "", "a name to recognise the key by")
	_ = cmd.MarkFlagRequired("account")
	return cmd
}

func keysListCommand() *cobra.Command {
	var account string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List API keys (never the keys themselves)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, cleanup, err := keyStore(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			keys, err := store.ListKeys(cmd.Context(), account)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tACCOUNT\tNAME\tPREFIX\tPERMISSIONS\tCREATED\tREVOKED")
			for _, k := range keys {
				revoked := "-"
				if k.RevokedAt != nil {
					revoked = k.RevokedAt.UTC().Format("2006-01-02T15:04:05Z")
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s…\t%s\t%s\t%s\n", k.ID, k.AccountName, k.Name, k.Prefix,
					strings.Join(k.Permissions, ","), k.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"), revoked)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().StringVar(&account, "account", "", "only this account's keys")
	return cmd
}

func keysRevokeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "revoke KEY_ID",
		Short: "Revoke an API key by its id (key_...)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, cleanup, err := keyStore(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			if err := store.RevokeKey(cmd.Context(), args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Revoked %s\n", args[0])
			return nil
		},
	}
}

// openModuleDatabase finds the database of the modules SHIPD_MODULES names
// (their own, <MODULE>_DATABASE_URL, or DATABASE_URL): where their dead
// letters are.
func openModuleDatabase(cmd *cobra.Command) (*sqlx.DB, func(), error) {
	cfg, err := loadConfig()
	if err != nil {
		return nil, nil, err
	}
	return server.OpenModuleDatabase(cmd.Context(), cfg)
}
