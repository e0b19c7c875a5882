package main

import (
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"shipd"
	"shipd/platform/clock"
	"shipd/platform/config"
	"shipd/platform/failpoint"
)

func serveCommand() *cobra.Command {
	var modules string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Apply pending migrations and serve the API on HTTP_ADDR",
		Long: "Apply pending migrations and serve the API on HTTP_ADDR.\n\n" +
			"serve, like every subcommand, reads its settings from the environment (the README's \"Configuration\" says more):\n\n" +
			config.SettingsHelp(),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := loadConfig()
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("modules") {
				cfg.Modules = strings.Split(modules, ",")
				if err := cfg.Validate(); err != nil {
					return err
				}
			}
			if err := armFailpoint(cfg); err != nil {
				return err
			}
			ctx := cmd.Context()
			app, cleanup, err := shipd.InitializeApp(ctx, cfg, serviceClock(cfg))
			if err != nil {
				return err
			}
			defer cleanup()
			if err := app.Migrate(ctx); err != nil {
				return err
			}
			ln, err := net.Listen("tcp", cfg.HTTPAddr)
			if err != nil {
				return fmt.Errorf("listening on %s: %w", cfg.HTTPAddr, err)
			}
			fmt.Fprintf(os.Stderr, "shipd: serving on http://%s (Ctrl-C stops)\n", ln.Addr())
			return app.Run(ctx, ln)
		},
	}
	cmd.Flags().StringVar(&modules, "modules", "", "comma-separated modules this process runs ("+strings.Join(config.ModuleNames, ", ")+"); default SHIPD_MODULES, or all")
	return cmd
}

// serviceClock is the wall clock, unless a fault test asked for one it can
// move (SHIPD_TEST_CLOCK_FILE); that is said loudly, as no real deployment
// should ever run on it.
func serviceClock(cfg config.Config) clock.Clock {
	if cfg.TestClockFile == "" {
		return clock.Real{}
	}
	fmt.Fprintf(os.Stderr, "shipd: TEST CLOCK: the service's time is the wall clock plus the offset in %s (fault tests only)\n", cfg.TestClockFile)
	return clock.FromFile(cfg.TestClockFile)
}

// armFailpoint arms the fault tests' failpoint (SHIPD_TEST_FAILPOINT), said
// loudly like the test clock.
func armFailpoint(cfg config.Config) error {
	if cfg.TestFailpoint == "" {
		return nil
	}
	if err := failpoint.Arm(cfg.TestFailpoint); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "shipd: TEST FAILPOINT %s: this process kills itself there (fault tests only)\n", cfg.TestFailpoint)
	return nil
}
