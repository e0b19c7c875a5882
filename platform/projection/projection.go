// Package projection describes read models built from events and rebuilds
// them from scratch: the events are replayed into shadow tables, which then
// replace the live ones in one short transaction, so readers never see an
// empty or half-built read model (architecture/decisions/0022).
package projection

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/jmoiron/sqlx"

	"shipd/platform/messaging"
)

// Projection is a read model as the bus and a rebuild see it.
type Projection struct {
	// Name is "<module>.<read model>", e.g. "shipments.shipment_list".
	Name string
	// Tables are the read model's tables, schema-qualified, in the order its
	// writes lock them; a rebuild replaces them all at once and locks them
	// in this order, so it cannot deadlock with a live write.
	Tables []string
	// Events are the event types the read model is built from.
	Events []messaging.EventKind
	// NewBatch starts a batch of writes into tables and nowhere else: its
	// SQL goes through tables.SQL, or a rebuild would write into the live
	// tables.
	NewBatch func(tables Tables) messaging.Batch
}

// Subscribe adds the projection's live consumer groups, named after it, one
// per stream it reads: each subscriber transaction's events are written as
// one batch into the live tables, with their acknowledgement.
func (p Projection) Subscribe(bus *messaging.Bus) error {
	return messaging.SubscribeBatches(bus, p.Name, p.Events, func() messaging.Batch { return p.NewBatch(Live) })
}

// Apply writes stored messages into tables in tx, as one batch; messages
// of event types the projection does not take are passed over.
func (p Projection) Apply(ctx context.Context, tx *sqlx.Tx, tables Tables, msgs ...messaging.StoredMessage) error {
	b := p.NewBatch(tables)
	for _, m := range msgs {
		for _, k := range p.Events {
			if k.EventType() != m.Name {
				continue
			}
			e, err := k.Decode(m)
			if err != nil {
				return err
			}
			b.Add(e)
		}
	}
	return b.Write(ctx, tx)
}

// Sources are the tables a replay reads: the streams the projection's events
// travel on.
func (p Projection) Sources() []string {
	var streams []string
	for _, k := range p.Events {
		if !slices.Contains(streams, k.Stream()) {
			streams = append(streams, k.Stream())
		}
	}
	return streams
}

// Tables names the tables a projection writes: the live ones, or a rebuild's
// shadows. A projection writes its SQL against the live names (the module's
// schema, as architecture rule 5 checks) and passes it through SQL.
type Tables struct {
	names map[string]string // live name → name written
	match *regexp.Regexp
}

// Live are the live tables.
var Live = Tables{}

// SQL returns query with every live table name replaced by the name written.
func (t Tables) SQL(query string) string {
	if t.match == nil {
		return query
	}
	return t.match.ReplaceAllStringFunc(query, func(live string) string { return t.names[live] })
}

// renamed is the Tables that writes each live table as names[live].
func renamed(names map[string]string) Tables {
	alternatives := make([]string, 0, len(names))
	for live := range names {
		alternatives = append(alternatives, regexp.QuoteMeta(live))
	}
	// Longest first, and \b after each name: shipments.shipment_list must
	// not match the start of shipments.shipment_list_seq.
	slices.SortFunc(alternatives, func(a, b string) int { return len(b) - len(a) })
	return Tables{names: names, match: regexp.MustCompile(`\b(?:` + strings.Join(alternatives, "|") + `)\b`)}
}

// splitName splits "schema.table".
func splitName(qualified string) (schema, table string, err error) {
	schema, table, ok := strings.Cut(qualified, ".")
	if !ok || schema == "" || table == "" || strings.ContainsAny(table, `." `) {
		return "", "", fmt.Errorf("projection: table %q is not schema.table", qualified)
	}
	return schema, table, nil
}
