package apptest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"shipd/platform/projection"
)

// Projections is module's read models on its database, to list and
// rebuild as `SHIPD_MODULES=<module> shipd projections` does: an instance
// is built for it but not run.
func (e *Env) Projections(module string) *projection.Catalog {
	e.t.Helper()
	cfg := e.Config
	cfg.Modules = []string{module}
	app, cleanup, err := e.init(context.Background(), cfg, e.Clock)
	if err != nil {
		e.t.Fatalf("building app: %v", err)
	}
	e.t.Cleanup(cleanup)
	return app.Projections()
}

// Answers GETs every path with key and returns the answers, one line each:
// what a client of those list endpoints sees. Any status but 200 fails t.
func (e *Env) Answers(key string, paths ...string) string {
	e.t.Helper()
	return e.answers("", key, paths)
}

// CorruptedAnswers is Answers while the test has corrupted a read model on
// purpose: the answers are not checked against the OpenAPI document.
func (e *Env) CorruptedAnswers(key string, paths ...string) string {
	e.t.Helper()
	return e.answers("the read model was corrupted on purpose", key, paths)
}

func (e *Env) answers(unchecked, key string, paths []string) string {
	e.t.Helper()
	var b strings.Builder
	for _, p := range paths {
		res := e.Do(Request{Method: http.MethodGet, Path: p, Key: key, Unchecked: unchecked})
		if res.Status != http.StatusOK {
			e.t.Fatalf("GET %s: %d %s", p, res.Status, res.Body)
		}
		fmt.Fprintf(&b, "%s %s\n", p, res.Body)
	}
	return b.String()
}

// Settled waits until the answers to paths show what ready looks for and
// then stay the same for a while (the read models have caught up with every
// write and background step), and returns them.
func (e *Env) Settled(key string, ready func(answers string) bool, paths ...string) string {
	e.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last := ""
	for {
		now := e.Answers(key, paths...)
		if now == last && ready(now) {
			return now
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("the answers to %v did not settle on what the test made within 30 s; the last:\n%s", paths, now)
		}
		last = now
		time.Sleep(500 * time.Millisecond) // answers alike this far apart count as settled
	}
}

// DiffLines lists the lines of got that want lacks (+) and of want that got
// lacks (-), the first 20 of them, for failure messages about answers and
// tables.
func DiffLines(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "- "+l)
		}
	}
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "+ "+l)
		}
	}
	if len(out) > 20 {
		out = append(out[:20], fmt.Sprintf("... %d more", len(out)-20))
	}
	return strings.Join(out, "\n")
}
