package projection

import "shipd/platform/messaging"

// Newest keeps, of each row a batch of events touches, the newest event the
// batch brings for it (the highest version): a read model row shows its
// resource as it is after the batch, so the events before the newest change
// nothing the reader sees. Rows come back in the order the batch first
// touched them, which is the stream's order.
type Newest[E any] struct {
	ids    []string
	events map[string]E
	vers   map[string]int
}

// Put keeps e as the row id's newest event, unless it already has a newer one.
func (n *Newest[E]) Put(id string, version int, e E) {
	if n.events == nil {
		n.events, n.vers = map[string]E{}, map[string]int{}
	}
	v, seen := n.vers[id]
	if !seen {
		n.ids = append(n.ids, id)
	} else if v >= version {
		return
	}
	n.events[id], n.vers[id] = e, version
}

// Take keeps the event of picks out of e, if any (see Put).
func (n *Newest[E]) Take(e messaging.Event, of Of[E]) {
	if id, version, kept, ok := of(e); ok {
		n.Put(id, version, kept)
	}
}

// IDs are the rows touched, in the order they were first touched.
func (n *Newest[E]) IDs() []string { return n.ids }

// Get is the newest event of row id.
func (n *Newest[E]) Get(id string) E { return n.events[id] }

// Len is how many rows were touched.
func (n *Newest[E]) Len() int { return len(n.ids) }
