// Package logtest lets a test read what the code under it logged through
// the default slog logger (log/slog's package functions), the logger the
// warnings a test looks for are written to.
package logtest

import (
	"bytes"
	"log/slog"
	"testing"
)

// Capture sends the default slog logger to the buffer it returns, as text,
// until t ends. The default logger is the process's: a test that captures
// it must not run in parallel with one that logs.
func Capture(t testing.TB) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&buf, nil)))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}
