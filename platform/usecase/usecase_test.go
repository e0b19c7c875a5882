package usecase_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/trace"
	"strings"
	"testing"
	"time"

	"shipd/platform/fault"
	"shipd/platform/usecase"
)

// BookParcel stands in for a module's command; the decorators name a use
// case after its type.
type BookParcel struct{ Secret string }

// bookParcel fails with its first error, if any (a slice: an empty one is
// no missing dependency).
type bookParcel struct {
	store *[]string
	fail  []error
}

func (h bookParcel) Handle(_ context.Context, cmd BookParcel) error {
	*h.store = append(*h.store, cmd.Secret)
	if len(h.fail) > 0 {
		return h.fail[0]
	}
	return nil
}

// CountParcels stands in for a query.
type CountParcels struct{}

type countParcels struct{ n *int }

func (h countParcels) Handle(context.Context, CountParcels) (int, error) { return *h.n, nil }

type run struct{ name, kind, outcome string }

type recordedRuns struct{ runs []run }

func (r *recordedRuns) ObserveUseCase(name, kind, outcome string, took time.Duration) {
	r.runs = append(r.runs, run{name, kind, outcome})
}

func observer(logs *bytes.Buffer, runs *recordedRuns) usecase.Observer {
	return usecase.Observer{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Metrics: runs}
}

func TestCommandIsRunMeasuredAndLoggedWithoutItsContent(t *testing.T) {
	var logs bytes.Buffer
	runs := &recordedRuns{}
	var store []string
	h := usecase.Command[BookParcel](bookParcel{store: &store}, observer(&logs, runs))
	if err := h.Handle(context.Background(), BookParcel{Secret: "hunter2"}); err != nil {
		t.Fatal(err)
	}
	if len(store) != 1 || store[0] != "hunter2" {
		t.Fatalf("the handler ran with %v, want the command once", store)
	}
	if want := (run{"BookParcel", "command", "ok"}); len(runs.runs) != 1 || runs.runs[0] != want {
		t.Fatalf("metrics got %v, want %v", runs.runs, want)
	}
	line := logs.String()
	if !strings.Contains(line, "use_case=BookParcel") || !strings.Contains(line, "outcome=ok") || !strings.Contains(line, "level=DEBUG") {
		t.Fatalf("log line %q lacks the use case, its outcome or the debug level", line)
	}
	if strings.Contains(line, "hunter2") {
		t.Fatalf("the command's content was logged: %q", line)
	}
}

func TestOutcomesAndLogLevels(t *testing.T) {
	for _, tc := range []struct {
		err            error
		outcome, level string
	}{
		{fault.Field("name", "is required"), "validation", "DEBUG"},
		{fault.NotFound("Shipment"), "not_found", "DEBUG"},
		{fmt.Errorf("booking: %w", fault.Unavailable("carrier down")), "unavailable", "DEBUG"},
		{fmt.Errorf("claiming tracking checks: %w", context.Canceled), "canceled", "DEBUG"},
		{errors.New("disk on fire"), "error", "ERROR"},
	} {
		var logs bytes.Buffer
		runs := &recordedRuns{}
		var store []string
		err := usecase.Command[BookParcel](bookParcel{store: &store, fail: []error{tc.err}}, observer(&logs, runs)).Handle(context.Background(), BookParcel{})
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: the decorators returned %v, not the handler's error", tc.err, err)
		}
		if got := runs.runs[0].outcome; got != tc.outcome {
			t.Errorf("%v: outcome %q, want %q", tc.err, got, tc.outcome)
		}
		if !strings.Contains(logs.String(), "level="+tc.level) || !strings.Contains(logs.String(), "outcome="+tc.outcome) {
			t.Errorf("%v: logged %q, want level %s", tc.err, logs.String(), tc.level)
		}
	}
}

// A run whose caller went away is canceled whatever words its error has:
// PostgreSQL's 57014 reaches a COMMIT after lib/pq cancelled the statement
// before it, and a client that hung up is nothing to look into.
func TestARunWhoseCallerWentAwayIsCanceled(t *testing.T) {
	var logs bytes.Buffer
	runs := &recordedRuns{}
	var store []string
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cause := errors.New("commit: pq: canceling statement due to user request (57014)")
	err := usecase.Command[BookParcel](bookParcel{store: &store, fail: []error{cause}}, observer(&logs, runs)).Handle(ctx, BookParcel{})
	if !errors.Is(err, cause) {
		t.Fatalf("the decorators returned %v, not the handler's error", err)
	}
	if got := runs.runs[0].outcome; got != "canceled" {
		t.Errorf("outcome %q, want canceled", got)
	}
	if !strings.Contains(logs.String(), "level=DEBUG") || !strings.Contains(logs.String(), "outcome=canceled") {
		t.Errorf("logged %q, want a canceled run at debug", logs.String())
	}
}

func TestQueryAnswersThroughTheDecorators(t *testing.T) {
	var logs bytes.Buffer
	runs := &recordedRuns{}
	n := 7
	got, err := usecase.Query[CountParcels, int](countParcels{n: &n}, observer(&logs, runs)).Handle(context.Background(), CountParcels{})
	if err != nil || got != 7 {
		t.Fatalf("got %d, %v; want 7", got, err)
	}
	if want := (run{"CountParcels", "query", "ok"}); runs.runs[0] != want {
		t.Fatalf("metrics got %v, want %v", runs.runs[0], want)
	}
}

func TestHandlerWithoutADependencyIsRefusedAtConstruction(t *testing.T) {
	var logs bytes.Buffer
	defer func() {
		p := recover()
		if p == nil || !strings.Contains(fmt.Sprint(p), "store") {
			t.Fatalf("panic %v, want one naming the missing dependency", p)
		}
	}()
	usecase.Command[BookParcel](bookParcel{}, observer(&logs, &recordedRuns{}))
}

func TestObserverWithoutMetricsIsRefused(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a handler was built with nothing to report to")
		}
	}()
	var store []string
	usecase.Command[BookParcel](bookParcel{store: &store}, usecase.Observer{Logger: slog.Default()})
}

// The tracing decorator makes each run a task of the execution tracer: the
// trace taken around a run names it.
func TestRunIsATaskOfTheExecutionTrace(t *testing.T) {
	var out bytes.Buffer
	if err := trace.Start(&out); err != nil {
		t.Skipf("a trace is already being taken: %v", err)
	}
	var store []string
	err := usecase.Command[BookParcel](bookParcel{store: &store}, observer(&bytes.Buffer{}, &recordedRuns{})).Handle(context.Background(), BookParcel{})
	trace.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out.Bytes(), []byte("BookParcel")) {
		t.Fatal("the execution trace has no task named after the use case")
	}
}
