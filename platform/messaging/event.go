// Package messaging is the service's event and command plumbing: Watermill
// over PostgreSQL, or NATS JetStream beside it. Each module publishes on one
// ordered stream of its own through the Outbox, bound to the writer's
// transaction; the Bus runs the consumer groups, each reading a stream
// through one subscriber whose handlers pick the event types they take.
//
// This package is what the modules and the composition root use; the parts
// are in internal/: codec (a message's name, version and upcasters), grouptx
// (a consumer group's transactions), pgstream (the stream tables and their
// subscribers), wakeup (LISTEN/NOTIFY), deadletter, broker (the forwarder
// and the readers of JetStream) and stored (messages read back for a
// rebuild).
package messaging

import "shipd/platform/messaging/internal/codec"

// Event is a fact another module may react to, e.g. "shipping_channel.created"
// on the stream "channels". Events of one stream are read in the order their
// transactions wrote them.
type Event = codec.Event

// VersionedEvent is an event whose payload changed shape: EventVersion is the
// shape this code writes. Events without it are version 1.
type VersionedEvent = codec.VersionedEvent

// Command asks a module to act, e.g. "tracking.track_shipment_parcels". It
// travels on the command stream of the module that handles it.
type Command = codec.Command

// Metadata keys every message carries.
const (
	// MetadataName is the event type or command name (Watermill's cqrs key).
	MetadataName = codec.MetadataName
	// MetadataVersion is the payload's shape, "1" when absent.
	MetadataVersion = codec.MetadataVersion
	// MetadataPartitionKey is the aggregate a message is about (Keyed).
	MetadataPartitionKey = codec.MetadataPartitionKey
)

// Keyed is an event or command about one aggregate: PartitionKey is its id,
// and a consumer group reads one key's messages in one partition, in order
// (ADR 0050). A message that is not Keyed goes to partition 0.
type Keyed = codec.Keyed

// An Upcaster rewrites the JSON payload of one event type from version From
// to From+1. Stored events are never rewritten: they are brought up to date
// each time they are read, so a projection rebuild replays old history with
// today's code.
type Upcaster = codec.Upcaster

// RegisterUpcaster adds u; a module registers its own from its contract
// package's init. Registering the same step twice is a programming error.
func RegisterUpcaster(u Upcaster) { codec.RegisterUpcaster(u) }

// CanUpcast reports whether stored payloads of eventType at version from are
// brought up to version to when read.
func CanUpcast(eventType string, from, to int) bool { return codec.CanUpcast(eventType, from, to) }

// Shape describes the JSON a message of v's type is written as (see
// eventtest.CheckShapes).
func Shape(v any) string { return codec.Shape(v) }

// Version is the payload version v is written with.
func Version(v any) int { return codec.Version(v) }

// Name is the event type or command name of v.
func Name(v any) string { return codec.Name(v) }
