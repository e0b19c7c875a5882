package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"shipd/platform/auth"
)

func usersCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Create dashboard users"}
	cmd.AddCommand(usersCreateCommand())
	return cmd
}

func usersCreateCommand() *cobra.Command {
	var account, email string
	cmd := &cobra.Command{
		Use:   "create --account NAME --email ADDRESS",
		Short: "Create a dashboard user (and the account when new); the password is read from standard input",
		Long: "Create a dashboard user of an account (made when new). The password is asked twice without echo on a\n" +
			"terminal, else read as the first line of standard input (printf '%s\\n' \"$PASSWORD\" | shipd users create ...),\n" +
			"never from a flag, which would leave it in the shell history and the process list.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			password, err := readPassword(cmd)
			if err != nil {
				return err
			}
			store, cleanup, err := keyStore(cmd)
			if err != nil {
				return err
			}
			defer cleanup()
			u, err := store.CreateUser(cmd.Context(), auth.NewUserRequest{AccountName: account, Email: email, Password: password})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Created user %s (%s) of account %s (%s).\n", u.ID, u.Email, u.AccountName, u.AccountID)
			return nil
		},
	}
	cmd.Flags().StringVar(&account, "account", "", "account name (created when new)")
	cmd.Flags().StringVar(&email, "email", "", "the user's e-mail address, used to sign in")
	_ = cmd.MarkFlagRequired("account")
	_ = cmd.MarkFlagRequired("email")
	return cmd
}

// readPassword asks twice on a terminal, else reads one line.
func readPassword(cmd *cobra.Command) (string, error) {
	in, ok := cmd.InOrStdin().(*os.File)
	if ok && term.IsTerminal(int(in.Fd())) {
		ask := func(prompt string) (string, error) {
			fmt.Fprint(cmd.ErrOrStderr(), prompt)
			b, err := term.ReadPassword(int(in.Fd()))
			fmt.Fprintln(cmd.ErrOrStderr())
			return string(b), err
		}
		first, err := ask("Password: ")
		if err != nil {
			return "", err
		}
		again, err := ask("Password again: ")
		if err != nil {
			return "", err
		}
		if first != again {
			return "", errors.New("the two passwords differ")
		}
		return first, nil
	}
	line, err := bufio.NewReader(cmd.InOrStdin()).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errors.New("no password on standard input (printf '%s\\n' \"$PASSWORD\" | shipd users create ...)")
	}
	return line, nil
}
