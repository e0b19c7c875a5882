package memrepo_test

import (
	"errors"
	"slices"
	"testing"

	"shipd/platform/memrepo"
)

// rows is a repository of counters by id, its events their new values.
type rows struct {
	book memrepo.Book[int]
	n    map[string]int
}

func (r *rows) load(id string) (*int, error) {
	n, ok := r.n[id]
	if !ok {
		return nil, errors.New("not found")
	}
	return &n, nil
}

var errVeto = errors.New("veto")

// A write that fails, or that the interference answers, changes nothing
// and publishes nothing; one that succeeds publishes its events with it.
func TestAWriteIsAllOrNothing(t *testing.T) {
	r := &rows{n: map[string]int{}}
	insert := func() error { r.n["a"] = 1; return nil }
	if err := memrepo.Add(&r.book, "a", insert, []int{1}); err != nil {
		t.Fatal(err)
	}
	store := func(n *int, _ []int) error { r.n["a"] = *n; return nil }
	if _, err := memrepo.Update(&r.book, "a", r.load, func(n *int) ([]int, error) { *n = 5; return nil, errVeto }, store); !errors.Is(err, errVeto) {
		t.Errorf("vetoed update: %v", err)
	}
	r.book.Interfere(func(op, id string) error {
		if op == "Update" && id == "a" {
			return errVeto
		}
		return nil
	})
	if _, err := memrepo.Update(&r.book, "a", r.load, func(n *int) ([]int, error) { *n = 6; return []int{6}, nil }, store); !errors.Is(err, errVeto) {
		t.Errorf("interfered update: %v", err)
	}
	r.book.Interfere(nil)
	if n, err := memrepo.Update(&r.book, "a", r.load, func(n *int) ([]int, error) { *n = 2; return []int{2}, nil }, store); err != nil || *n != 2 {
		t.Errorf("update: %v, %v", n, err)
	}
	if err := memrepo.Delete(&r.book, "a", r.load, func(*int) ([]int, error) { return nil, errVeto }, func(*int) { delete(r.n, "a") }); !errors.Is(err, errVeto) {
		t.Errorf("vetoed delete: %v", err)
	}
	if got, err := memrepo.Get(&r.book, "Get", "a", r.load); err != nil || *got != 2 || !slices.Equal(r.book.Published(), []int{1, 2}) {
		t.Errorf("after the writes: %v (%v), published %v", got, err, r.book.Published())
	}
}
