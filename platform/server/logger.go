package server

import (
	"log/slog"
	"os"

	"shipd/platform/config"
)

// Logger returns the JSON logger of the service, at LOG_LEVEL.
func Logger(cfg config.Config) (logger *slog.Logger) {
	level, _ := cfg.SlogLevel() // Validate rejected bad levels
	out := cfg.LogWriter
	if out == nil {
		out = os.Stderr
		defer func() { slog.SetDefault(logger) }() // only the real process owns the default logger
	}
	logger = slog.New(slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level}))
	return logger
}
