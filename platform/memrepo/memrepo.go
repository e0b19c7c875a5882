// Package memrepo is what the modules' in-memory repositories (their
// adapters/memory, for tests of the app layer that need no database) keep
// alike, so each keeps the contract of its PostgreSQL counterpart the same
// way: one lock over the rows, a test's hook that fails a call as a
// database might before anything changes, the events published with the
// change that caused them, and the order of a write (load, let the
// caller's function change or veto, store and publish, or nothing when it
// fails).
package memrepo

import (
	"slices"
	"sync"
)

// Book is a repository's lock, interference and published events; the
// rows are the repository's own, and its methods that read or write them
// other than through Add, Get, Update and Delete hold the Book's lock.
type Book[E any] struct {
	sync.Mutex
	interfere func(op string, ids []string) error
	published []E
}

// Interfere makes the repository fail as a database might: before each
// call f is asked with the operation (the method's name) and the id it is
// about; an error it returns is the call's answer and nothing changes. nil
// stops interfering.
func (b *Book[E]) Interfere(f func(op, id string) error) {
	if f == nil {
		b.InterfereAll(nil)
		return
	}
	b.InterfereAll(func(op string, ids []string) error { return f(op, ids[0]) })
}

// InterfereAll is Interfere for a repository whose calls may be about
// several ids at once: f is asked with all of them.
func (b *Book[E]) InterfereAll(f func(op string, ids []string) error) {
	b.Lock()
	defer b.Unlock()
	b.interfere = f
}

// Interfered is the interference's answer to op on ids; the caller holds
// the lock.
func (b *Book[E]) Interfered(op string, ids ...string) error {
	if b.interfere == nil {
		return nil
	}
	return b.interfere(op, ids)
}

// Publish records events as published; the caller holds the lock.
func (b *Book[E]) Publish(events ...E) { b.published = append(b.published, events...) }

// Published returns every event published so far, in order.
func (b *Book[E]) Published() []E {
	b.Lock()
	defer b.Unlock()
	return slices.Clone(b.published)
}

// Add is a repository's Add: insert stores the new row, refusing as the
// table's keys do, and events are published with it.
func Add[E any](b *Book[E], id string, insert func() error, events []E) error {
	b.Lock()
	defer b.Unlock()
	if err := b.Interfered("Add", id); err != nil {
		return err
	}
	if err := insert(); err != nil {
		return err
	}
	b.Publish(events...)
	return nil
}

// Get is a read of one id under the lock, answered by op's interference
// first.
func Get[E, T any](b *Book[E], op, id string, read func(id string) (T, error)) (T, error) {
	b.Lock()
	defer b.Unlock()
	if err := b.Interfered(op, id); err != nil {
		var zero T
		return zero, err
	}
	return read(id)
}

// Update is a repository's Update: the aggregate load reads is changed by
// fn, then store keeps it and the events fn names are published; when fn
// fails nothing changes.
func Update[E, A any](b *Book[E], id string, load func(id string) (A, error), fn func(A) ([]E, error),
	store func(a A, events []E) error,
) (A, error) {
	var zero A
	b.Lock()
	defer b.Unlock()
	if err := b.Interfered("Update", id); err != nil {
		return zero, err
	}
	a, err := load(id)
	if err != nil {
		return zero, err
	}
	events, err := fn(a)
	if err != nil {
		return zero, err
	}
	if err := store(a, events); err != nil {
		return zero, err
	}
	b.Publish(events...)
	return a, nil
}

// Delete is a repository's Delete: fn may veto the aggregate load reads,
// else remove deletes its rows and the events fn names are published.
func Delete[E, A any](b *Book[E], id string, load func(id string) (A, error), fn func(A) ([]E, error), remove func(A)) error {
	b.Lock()
	defer b.Unlock()
	if err := b.Interfered("Delete", id); err != nil {
		return err
	}
	a, err := load(id)
	if err != nil {
		return err
	}
	events, err := fn(a)
	if err != nil {
		return err
	}
	remove(a)
	b.Publish(events...)
	return nil
}
