//go:build faults

package faults

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// failures is a test that keeps what its checks failed on, to say it again
// as the test's last lines: a failed scenario ends with the logs of its
// processes and the broker's state, which push the failed check out of a
// short excerpt of the output (CI keeps only the end).
type failures struct {
	testing.TB
	mu   sync.Mutex
	said []string
}

// recordFailures wraps t; its cleanup, registered before any other of the
// scenario's, runs last and repeats the failures.
func recordFailures(t testing.TB) *failures {
	f := &failures{TB: t}
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.said) > 0 {
			t.Logf("what failed, again after the logs above:\n  %s", strings.Join(f.said, "\n  "))
		}
	})
	return f
}

func (f *failures) keep(msg string) {
	f.mu.Lock()
	f.said = append(f.said, msg)
	f.mu.Unlock()
}

func (f *failures) Errorf(format string, args ...any) {
	f.TB.Helper()
	f.keep(fmt.Sprintf(format, args...))
	f.TB.Errorf(format, args...)
}

func (f *failures) Error(args ...any) {
	f.TB.Helper()
	f.keep(fmt.Sprint(args...))
	f.TB.Error(args...)
}

func (f *failures) Fatalf(format string, args ...any) {
	f.TB.Helper()
	f.keep(fmt.Sprintf(format, args...))
	f.TB.Fatalf(format, args...)
}

func (f *failures) Fatal(args ...any) {
	f.TB.Helper()
	f.keep(fmt.Sprint(args...))
	f.TB.Fatal(args...)
}

// fakeTB is a test that keeps what is said to it.
type fakeTB struct {
	testing.TB
	errors, logs []string
	cleanups     []func()
}

func (f *fakeTB) Helper()           {}
func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

// A failure is reported as it happens and said again by the cleanup that
// runs last; a test that failed nothing says nothing more.
func TestFailuresAreSaidAgainLast(t *testing.T) {
	tb := &fakeTB{}
	f := recordFailures(tb)
	f.Errorf("acknowledged shipments not stored: %d", 3)
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
	if len(tb.errors) != 1 || tb.errors[0] != "acknowledged shipments not stored: 3" {
		t.Errorf("reported %q", tb.errors)
	}
	if len(tb.logs) != 1 || !strings.Contains(tb.logs[0], "again after the logs above") || !strings.Contains(tb.logs[0], "acknowledged shipments not stored: 3") {
		t.Errorf("said last %q", tb.logs)
	}

	quiet := &fakeTB{}
	recordFailures(quiet)
	for _, fn := range quiet.cleanups {
		fn()
	}
	if len(quiet.logs) != 0 {
		t.Errorf("a test without failures said %q", quiet.logs)
	}
}
