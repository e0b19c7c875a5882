// Package eventtest holds a module's published messages to the shapes their
// stored history was written in.
package eventtest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"shipd/platform/messaging"
)

// Dir is where the shapes are kept, beside the test that checks them.
const Dir = "testdata/events"

// writeVar set keeps the shape of a version that has none yet.
const writeVar = "WRITE_NEW_EVENT_SHAPES"

// CheckShapes holds each message (an event or a command, a zero value of
// its type) to the shape kept for its version in Dir/<name>.v<version>.txt
// (messaging.Shape). Messages are stored for good and read back by every
// later build: a payload that changes shape under the same version would be
// misread. So a changed shape fails, and so does a version without a kept
// shape (run the test once with WRITE_NEW_EVENT_SHAPES=1 to keep it, and
// commit it); every older version kept must be brought up by upcasters.
//
// names are every event type or command name the module publishes: each
// must be among messages.
func CheckShapes(t *testing.T, names []string, messages ...any) {
	t.Helper()
	problems, err := check(Dir, os.Getenv(writeVar) != "", names, messages)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Error(p)
	}
}

var shapeFile = regexp.MustCompile(`^(.+)\.v(\d+)\.txt$`)

// check returns what is wrong with messages' shapes against those kept in
// dir; write keeps the shapes of versions that have none.
func check(dir string, write bool, names []string, messages []any) ([]string, error) {
	var problems []string
	given := map[string]bool{}
	for _, msg := range messages {
		given[messaging.Name(msg)] = true
	}
	for _, n := range names {
		if !given[n] {
			problems = append(problems, fmt.Sprintf("%s is published but its shape is not checked: add a value of its type", n))
		}
	}
	kept := map[string][]int{} // name -> versions with a kept shape
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		if m := shapeFile.FindStringSubmatch(e.Name()); m != nil {
			v, _ := strconv.Atoi(m[2])
			kept[m[1]] = append(kept[m[1]], v)
		}
	}
	for _, msg := range messages {
		name, version, shape := messaging.Name(msg), messaging.Version(msg), messaging.Shape(msg)
		path := filepath.Join(dir, fmt.Sprintf("%s.v%d.txt", name, version))
		want, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist) && write:
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(path, []byte(shape), 0o644); err != nil {
				return nil, err
			}
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, fmt.Sprintf("%s v%d has no kept shape; run the test with %s=1 and commit %s:\n%s",
				name, version, writeVar, path, shape))
		case err != nil:
			return nil, err
		case string(want) != shape:
			problems = append(problems, fmt.Sprintf("%s v%d is written in another shape than its stored history (%s), which later reads "+
				"would misread. Give the type a new version (EventVersion) and an upcaster from this one, and keep both shapes.\nkept:\n%s\nnow:\n%s",
				name, version, path, want, shape))
		}
		for _, older := range kept[name] {
			if older < version && !messaging.CanUpcast(name, older, version) {
				problems = append(problems, fmt.Sprintf("%s v%d is kept but no upcasters bring it up to v%d: its stored messages could not be read",
					name, older, version))
			}
		}
	}
	return problems, nil
}
