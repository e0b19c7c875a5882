package server

import (
	"log/slog"
	"os"

	"shipd/platform/config"
)

// Logger returns the JSON logger of the service, at LOG_LEVEL.
func Logger(cfg config.Config) *slog.Logger {
	level, _ := cfg.SlogLevel() // Validate rejected bad levels
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(logger)
	return logger
}
