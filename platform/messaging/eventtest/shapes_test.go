package eventtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"shipd/platform/messaging"
)

type parcel struct {
	Number *string `json:"tracking_number"`
}

type noted struct {
	AccountID string            `json:"account_id"`
	Parcels   []parcel          `json:"parcels"`
	Labels    map[string][]byte `json:"labels"`
}

func (noted) EventType() string   { return "test.noted" }
func (noted) EventStream() string { return "test" }

// noted as a later build writes it: one more field, version 2.
type notedV2 struct {
	noted
	Carrier string `json:"carrier"`
}

func (notedV2) EventVersion() int { return 2 }

// A shape is kept once, then holds: the same type passes, a type that
// changed shape under its version fails, a new version needs its own shape
// kept and an upcaster from the old one, and every published name must be
// checked.
func TestShapesHoldHistory(t *testing.T) {
	dir := t.TempDir()
	if problems, err := check(dir, false, nil, []any{noted{}}); err != nil || len(problems) != 1 || !strings.Contains(problems[0], "no kept shape") {
		t.Fatalf("no shape kept yet: %q, %v", problems, err)
	}
	if problems, err := check(dir, true, nil, []any{noted{}}); err != nil || len(problems) != 0 {
		t.Fatalf("keeping it: %q, %v", problems, err)
	}
	kept, err := os.ReadFile(filepath.Join(dir, "test.noted.v1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := "test.noted v1\naccount_id string\nlabels object\nlabels{} string(base64)\nparcels array\nparcels[] object\nparcels[].tracking_number string|null\n"
	if string(kept) != want {
		t.Errorf("kept shape:\n%s\nwant:\n%s", kept, want)
	}
	if problems, _ := check(dir, false, []string{"test.noted"}, []any{noted{}}); len(problems) != 0 {
		t.Errorf("the same type: %q", problems)
	}
	// The same name and version written in another shape.
	changed := filepath.Join(dir, "test.noted.v1.txt")
	if err := os.WriteFile(changed, []byte(strings.Replace(want, "account_id string", "account_id number", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if problems, _ := check(dir, false, nil, []any{noted{}}); len(problems) != 1 || !strings.Contains(problems[0], "another shape") {
		t.Errorf("a changed shape: %q", problems)
	}
	if err := os.WriteFile(changed, kept, 0o644); err != nil {
		t.Fatal(err)
	}
	// Version 2 kept, with no upcaster from 1.
	if problems, _ := check(dir, true, nil, []any{notedV2{}}); len(problems) != 1 || !strings.Contains(problems[0], "no upcasters") {
		t.Errorf("a new version without an upcaster: %q", problems)
	}
	messaging.RegisterUpcaster(messaging.Upcaster{EventType: "test.noted", From: 1, Upcast: func(p []byte) ([]byte, error) { return p, nil }})
	if problems, _ := check(dir, false, nil, []any{notedV2{}}); len(problems) != 0 {
		t.Errorf("with the upcaster: %q", problems)
	}
	if problems, _ := check(dir, false, []string{"test.noted", "test.erased"}, []any{notedV2{}}); len(problems) != 1 || !strings.Contains(problems[0], "test.erased is published") {
		t.Errorf("an unchecked name: %q", problems)
	}
}
